"use client";

import type { inferRouterOutputs } from "@trpc/server";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import type { AppRouter } from "@/server/trpc/router";

/** A tool server as the Team page knows it: never a header's value. */
export type ToolServerView = inferRouterOutputs<AppRouter>["mcp"]["list"][number];

const STATE: Record<string, { label: string; tone: Tone }> = {
  idle: { label: "Not connected", tone: "neutral" },
  connecting: { label: "Connecting", tone: "blue" },
  connected: { label: "Connected", tone: "green" },
  failed: { label: "Failed", tone: "red" },
  unauthorized: { label: "Not connected (OAuth)", tone: "amber" },
};

export interface RowActions {
  reconnect(): void;
  edit(): void;
  toggle(): void;
  remove(): void;
}

/** One server: its name, where it comes from, its URL and headers (by secret name), its status here and its tools. */
export function ToolServerRow({ server, actions, connect }: { server: ToolServerView; actions: RowActions | undefined; connect: () => void }) {
  const state = STATE[server.status.state] ?? { label: server.status.state, tone: "neutral" as const };
  return (
    <li className="space-y-2 py-3" data-testid="tool-server" data-name={server.name}>
      <div className="flex flex-wrap items-center gap-2">
        <p className="font-mono text-sm font-medium text-zinc-900">{server.name}</p>
        <Badge>{server.source === "config" ? "server configuration" : server.source}</Badge>
        {server.enabled ? null : <Badge tone="amber">disabled</Badge>}
        {server.oauthPerMember ? <Badge tone="violet">OAuth per member</Badge> : null}
        <Badge tone={state.tone} data-testid="tool-server-status">
          {state.label}
        </Badge>
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-500">
          {server.type === "local" ? `local: ${server.command.join(" ")}${server.network ? " · network" : ""}${server.writable ? " · writes the project" : ""}` : server.url}
        </span>
        {server.oauth && (actions || server.oauthPerMember) ? (
          <Button size="sm" variant="primary" onClick={connect}>
            Connect {server.name}
          </Button>
        ) : null}
        {actions ? (
          <span className="flex gap-1">
            <Button size="sm" onClick={actions.reconnect} aria-label={`Reconnect ${server.name}`}>
              Reconnect
            </Button>
            {server.id ? (
              <>
                <Button size="sm" onClick={actions.edit} aria-label={`Edit ${server.name}`}>
                  Edit
                </Button>
                <Button size="sm" onClick={actions.toggle} aria-label={`${server.enabled ? "Disable" : "Enable"} ${server.name}`}>
                  {server.enabled ? "Disable" : "Enable"}
                </Button>
                <Button size="sm" variant="ghost" onClick={actions.remove} aria-label={`Remove ${server.name}`}>
                  Remove
                </Button>
              </>
            ) : null}
          </span>
        ) : null}
      </div>
      {server.status.error ? (
        <p className="text-xs text-red-700" data-testid="tool-server-error">
          {server.status.error}
        </p>
      ) : null}
      {server.headers.length ? (
        <p className="text-xs text-zinc-500">
          Headers:{" "}
          {server.headers.map((h) => (
            <span key={h.name} className="mr-2 font-mono">
              {h.name}: {h.prefix ?? ""}
              {h.secret ? `‹secret ${h.secret}›` : "‹set by the operator›"}
            </span>
          ))}
        </p>
      ) : null}
      <ul className="flex flex-wrap gap-1.5" data-testid="tool-server-tools" aria-label={`Tools of ${server.name}`}>
        {server.tools.map((tool) => (
          <li key={tool.id} title={tool.description}>
            <Badge tone="indigo">{tool.id}</Badge>
          </li>
        ))}
        {server.tools.length === 0 ? <li className="text-xs text-zinc-400">No tools listed yet.</li> : null}
      </ul>
    </li>
  );
}
