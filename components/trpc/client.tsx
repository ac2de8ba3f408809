"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider, isServer } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { type ReactNode, useState } from "react";
import { reloadTo } from "@/components/auth/reload";
import { MAX_BATCH_CALLS, PUBLIC_PROCEDURES } from "@/lib/trpc-batch";
import type { AppRouter } from "@/server/trpc/router";

/** tRPC + React Query for client components: `const trpc = useTRPC()`. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: signInAgainWhenSignedOut }),
    mutationCache: new MutationCache({ onError: signInAgainWhenSignedOut }),
    defaultOptions: {
      queries: {
        // Live data arrives over SSE; a refetch on every focus would only add load.
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) => failureCount < 2 && !isClientError(error),
      },
    },
  });
}

/** The sign-in expired or was revoked while the page was open: sign in again, then come back here. */
function signInAgainWhenSignedOut(error: unknown): void {
  if (isServer || httpStatus(error) !== 401) return;
  const here = `${window.location.pathname}${window.location.search}`;
  reloadTo(`/sign-in?next=${encodeURIComponent(here)}`);
}

function httpStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("data" in error)) return undefined;
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null || !("httpStatus" in data)) return undefined;
  return typeof data.httpStatus === "number" ? data.httpStatus : undefined;
}

/** tRPC errors carry the HTTP status; retrying a 4xx (not found, invalid input) never helps. */
function isClientError(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("data" in error)) return false;
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null || !("httpStatus" in data)) return false;
  const status = data.httpStatus;
  return typeof status === "number" && status >= 400 && status < 500;
}

let browserQueryClient: QueryClient | undefined;
function getQueryClient(): QueryClient {
  // On the server every request gets its own client; in the browser one is kept for the tab.
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // The server batches members' calls (at most MAX_BATCH_CALLS) and never a share link's.
      links: [
        splitLink({
          condition: (op) => PUBLIC_PROCEDURES.has(op.path),
          true: httpLink({ url: "/api/trpc" }),
          false: httpBatchLink({ url: "/api/trpc", maxItems: MAX_BATCH_CALLS }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
