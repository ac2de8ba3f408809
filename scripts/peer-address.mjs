/**
 * Preloaded into the Next.js server by the launcher (`node --import`): stamps every
 * incoming HTTP request with the address of the socket it came on, in a header of
 * Parley's own that replaces whatever the client sent under that name. A Route Handler
 * cannot see the socket, and Next.js keeps a client's own X-Forwarded-For instead of the
 * socket address, so this is how the server knows who is really connected
 * (server/auth/client-address.ts). Node publishes `http.server.request.start` before
 * the server's "request" listeners run.
 */
import { subscribe } from "node:diagnostics_channel";

export const PEER_HEADER = "x-parley-peer";

subscribe("http.server.request.start", (message) => {
  const { request, socket } = /** @type {{ request: import("node:http").IncomingMessage; socket: import("node:net").Socket }} */ (message);
  const address = socket.remoteAddress;
  if (address) request.headers[PEER_HEADER] = address;
  else delete request.headers[PEER_HEADER];
});

// The server may trust the header only when this ran (server/auth/client-address.ts).
/** @type {Record<symbol, unknown>} */ (globalThis)[Symbol.for("parley.peer-header")] = true;
