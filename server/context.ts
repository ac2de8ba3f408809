import { ensureLocalWorkspace, type LocalWorkspace } from "./auth/local";
import { type Runtime, runtime } from "./runtime";
import type { Context } from "./session/context";

/**
 * The acting user for a request. Until sign-in exists, every request acts as the local
 * default user in the local team.
 */
let workspace: Promise<LocalWorkspace> | undefined;

export async function requestContext(): Promise<Context & { workspace: LocalWorkspace; runtime: Runtime }> {
  const rt = await runtime();
  workspace ??= ensureLocalWorkspace(rt.db, rt.config.defaultProject).catch((error: unknown) => {
    workspace = undefined;
    throw error;
  });
  const ws = await workspace;
  return { db: rt.db, bus: rt.bus, actor: ws.actor, share: rt.config.share, publicUrl: rt.config.publicUrl, workspace: ws, runtime: rt };
}
