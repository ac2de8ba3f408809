import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPCRequestInfo } from "@trpc/server/http";
import { ZodError } from "zod";
import { type ParleyErrorCode, isParleyError } from "../errors";
import type { SignedIn } from "../auth/member";
import { requestContext, requireActor } from "../context";
import { assertSameOrigin } from "../origin";
import type { Context } from "../services";
import type { Actor } from "../actor";
import { Session } from "../session";

/** What a member procedure gets: the acting user in their active team, and the services. */
export type TrpcContext = Context & { signedIn?: SignedIn | null };

/** What every request starts with: `actor` is missing when nobody is signed in or the user is in no team. */
export type TrpcRequestContext = Omit<TrpcContext, "actor"> & { actor: Actor | undefined };

/** What a procedure may declare about itself. */
interface Meta {
  /** Callable without a sign-in (a share link's procedures): never batched. */
  public?: boolean;
}

/**
 * Every call starts here: one from a page of another site is refused before anything
 * runs, and so is a batch the caller may not send (lib/trpc-batch.ts). The route caps a
 * batch's size before this (`maxBatchSize`); here, a batch holding a public procedure is
 * refused before anything is read, and one from a caller who is not signed in before any
 * of its calls runs (each would be refused anyway).
 */
export async function createTrpcContext({ req, info }: { req: Request; info?: TRPCRequestInfo }): Promise<TrpcRequestContext> {
  const batched = info !== undefined && info.isBatchCall && info.calls.length > 1;
  if (batched && info.calls.some((call) => (call.procedure?._def.meta as Meta | undefined)?.public === true)) {
    throw new TRPCError({ code: "BAD_REQUEST", message: "A share link's procedures cannot be batched: send one call per request." });
  }
  const ctx = await requestContext(req.headers);
  try {
    assertSameOrigin(req, ctx.settings.publicUrl);
  } catch (error) {
    if (isParleyError(error)) throw new TRPCError({ code: TRPC_CODE[error.code], message: error.message, cause: error });
    throw error;
  }
  if (batched && !ctx.signedIn) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue: only members may batch calls." });
  return ctx;
}

const TRPC_CODE: Record<ParleyErrorCode, TRPCError["code"]> = {
  NOT_FOUND: "NOT_FOUND",
  FORBIDDEN: "FORBIDDEN",
  UNAUTHORIZED: "UNAUTHORIZED",
  INVALID: "BAD_REQUEST",
  BUSY: "CONFLICT",
  CONFLICT: "CONFLICT",
  TOO_MANY: "TOO_MANY_REQUESTS",
  CORRUPT: "INTERNAL_SERVER_ERROR",
  INTERNAL: "INTERNAL_SERVER_ERROR",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
};

const t = initTRPC.context<TrpcRequestContext>().meta<Meta>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // An error nobody expected (a driver failure, a bug) can carry server paths, SQL or
    // connection details: the client gets a generic message, the server log the rest.
    const unexpected = error.code === "INTERNAL_SERVER_ERROR" && !isParleyError(cause);
    return {
      ...shape,
      message: unexpected ? "internal error" : shape.message,
      data: {
        ...shape.data,
        parleyCode: isParleyError(cause) ? cause.code : undefined,
        issues: cause instanceof ZodError ? cause.issues.map((i) => ({ path: i.path.map(String), message: i.message })) : undefined,
      },
    };
  },
});

/** The one place domain errors become tRPC errors. */
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isParleyError(result.error.cause)) {
    const cause = result.error.cause;
    return { ...result, error: new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause }) };
  }
  return result;
});

/** Every procedure but the share viewer's: signed in, and a member of the active team. */
const requireMember = t.middleware(({ ctx, next }) => next({ ctx: requireActor(ctx) }));

export const router = t.router;
export const procedure = t.procedure.use(mapDomainErrors).use(requireMember);

/**
 * A member procedure that starts a run (a prompt, a compaction, a rerun): refused with
 * UNAVAILABLE (503, Retry-After) while this instance shuts down (Session.assertAccepting).
 */
export const workProcedure = procedure.use(({ ctx, next }) => {
  Session.assertAccepting(ctx);
  return next();
});

/** Headers of a tRPC response: a refusal because this instance shuts down says when to try again. */
export function responseHeaders(errors: readonly TRPCError[]): Record<string, string> {
  const unavailable = errors.some((error) => isParleyError(error.cause) && error.cause.code === "UNAVAILABLE");
  return unavailable ? { "retry-after": String(Session.RETRY_AFTER_S) } : {};
}

/**
 * For anonymous share viewers (server/share): the member context is taken away — no
 * actor, no bus, no services — and only what reading a share link needs is left.
 */
export const publicProcedure = t.procedure.meta({ public: true }).use(mapDomainErrors).use(({ ctx, next }) =>
  next({
    // tRPC merges the new context into the old one: every member service is taken away explicitly.
    ctx: {
      viewer: {
        db: ctx.db,
        snapshots: ctx.snapshots,
        // Read only for the shared project's read rules (share/redaction.ts readRules): nothing is asked or stored.
        permissions: ctx.permissions,
        publicUrl: ctx.settings.publicUrl,
        mode: ctx.settings.share,
        dataDir: ctx.settings.dataDir,
        projectsRoot: ctx.settings.projectsRoot,
      },
      db: undefined,
      bus: undefined,
      clock: undefined,
      lock: undefined,
      runners: undefined,
      permissions: undefined,
      sandbox: undefined,
      snapshots: undefined,
      keyring: undefined,
      models: undefined,
      tools: undefined,
      executeTool: undefined,
      presence: undefined,
      settings: undefined,
      actor: undefined,
      signedIn: undefined,
    },
  }),
);
export const createCallerFactory = t.createCallerFactory;
