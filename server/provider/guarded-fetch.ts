import { sameOriginFetch } from "./compatible/http-transport";
import { DEFAULT_PROVIDER_LIMITS, type ProviderLimits } from "./limits";
import { bounded } from "./compatible/merge-deltas";

/**
 * The `fetch` of the Anthropic and Google providers: their answers are untrusted like any
 * provider's (limits.ts). Redirects are followed only within the origin (a redirect must
 * not carry the team's key elsewhere), an uncompressed answer is asked for, and a body
 * (an event stream or a whole answer) may not pass `maxAnswerBytes`. Their streams are read
 * by the AI SDK's own parsers; the part sizes and the step's clocks are checked where
 * every model's stream is read (server/session/llm.ts).
 */
export function guardedFetch(limits: ProviderLimits = DEFAULT_PROVIDER_LIMITS, base?: typeof fetch): typeof fetch {
  const send = sameOriginFetch((input, init) => (base ?? globalThis.fetch)(input, init));
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (!headers.has("accept-encoding")) headers.set("accept-encoding", "identity");
    const response = await send(input, { ...init, headers });
    if (!response.body) return response;
    return new Response(bounded(response.body, limits.maxAnswerBytes), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
