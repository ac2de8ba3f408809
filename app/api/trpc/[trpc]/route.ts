import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/router";
import { createTrpcContext, responseHeaders } from "@/server/trpc/init";
import { MAX_BATCH_CALLS } from "@/lib/trpc-batch";
import { requestLogger } from "@/server/log";

export const dynamic = "force-dynamic";

function handler(req: Request) {
  const { log, requestId } = requestLogger("trpc", req.headers);
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: createTrpcContext,
    // A longer batch is refused (400) before its input is read or anyone is looked up.
    maxBatchSize: MAX_BATCH_CALLS,
    responseMeta: ({ errors }) => ({ headers: { ...responseHeaders(errors), "x-request-id": requestId } }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") log.error(`${path ?? "?"} failed`, error.cause ?? error);
    },
  });
}

export { handler as GET, handler as POST };
