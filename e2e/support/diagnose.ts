import type { Db } from "@/server/db/client";

/**
 * What the server stored for the sessions a failed test touched: their status, every
 * message with its parts (tool states, text lengths) and their permission requests. CI
 * keeps no traces, so this is printed with the failure to tell a UI fault from a server one.
 */
export async function describeSessions(db: Db, teamId: string, since: Date): Promise<string> {
  const sessions = await db.session.findMany({
    where: { teamId, timeUpdated: { gte: since } },
    orderBy: { timeUpdated: "asc" },
    take: 5,
    select: { id: true, title: true, status: true, statusData: true },
  });
  const lines: string[] = [];
  for (const session of sessions) {
    lines.push(`session ${session.id} "${session.title}" status=${session.status}${session.statusData ? ` ${JSON.stringify(session.statusData)}` : ""}`);
    const [messages, parts, requests] = await Promise.all([
      db.message.findMany({ where: { sessionId: session.id }, orderBy: { id: "asc" }, take: 200 }),
      db.part.findMany({ where: { sessionId: session.id }, orderBy: { id: "asc" }, take: 1000 }),
      db.permissionRequest.findMany({ where: { sessionId: session.id }, orderBy: { id: "asc" } }),
    ]);
    for (const message of messages) {
      const info = message.data as { finish?: string; error?: { name?: string; message?: string }; time?: { completed?: number } };
      lines.push(
        `  ${message.role} ${message.id}${info.finish ? ` finish=${info.finish}` : ""}${info.time?.completed ? " completed" : ""}` +
          `${info.error ? ` error=${info.error.name}: ${info.error.message ?? ""}` : ""}`,
      );
      for (const part of parts.filter((p) => p.messageId === message.id)) {
        const data = part.data as { text?: string; tool?: string; state?: { status?: string; input?: unknown; error?: string } };
        const detail =
          part.type === "tool"
            ? `${data.tool} ${data.state?.status} ${JSON.stringify(data.state?.input ?? {})}${data.state?.error ? ` error=${data.state.error}` : ""}`
            : data.text !== undefined
              ? JSON.stringify(data.text.slice(0, 120))
              : "";
        lines.push(`    ${part.type} ${part.id} ${detail}`);
      }
    }
    for (const request of requests) {
      lines.push(`  permission ${request.id} ${request.permission} ${JSON.stringify(request.patterns)} ${request.status} created=${request.createdAt.toISOString()}`);
    }
  }
  return lines.join("\n");
}
