"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import type { PermissionRequest } from "./use-permission-requests";

/**
 * Whether "Always allow" is offered for a question: it must name patterns to remember,
 * and a question the server config or the team's or project's policy asks (`policy`) is
 * for owners and admins only (the server refuses a member's "always" to it as well).
 */
export function offersAlways(request: Pick<PermissionRequest, "always" | "policy">, mayBypassPolicy: boolean): boolean {
  return request.always.length > 0 && (request.policy !== true || mayBypassPolicy);
}

/** Whether the signed-in member is an owner or admin of the team, who may always allow a policy question (false until known). */
export function useMayBypassPolicy(): boolean {
  const trpc = useTRPC();
  const query = useQuery(trpc.permission.canBypassPolicy.queryOptions(undefined, { staleTime: 60_000 }));
  return query.data?.allowed === true;
}
