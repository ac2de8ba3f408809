"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";

/** Whether the signed-in member is an owner or admin of the team, who may always allow a policy question (false until known). */
export function useMayBypassPolicy(): boolean {
  const trpc = useTRPC();
  const query = useQuery(trpc.permission.canBypassPolicy.queryOptions(undefined, { staleTime: 60_000 }));
  return query.data?.allowed === true;
}
