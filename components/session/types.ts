import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

/** A session as the API returns it (server/session/info.ts is the source of truth). */
export type SessionInfo = inferRouterOutputs<AppRouter>["session"]["get"];
