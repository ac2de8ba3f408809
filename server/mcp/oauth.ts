import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { type OAuthClientInformation, type OAuthClientProvider, type OAuthTokens, UnauthorizedError } from "@ai-sdk/mcp";
import { z } from "zod";
import { Secrets } from "../secrets";
import type { Clock } from "../clock";
import type { Db } from "../db/client";
import type { Keyring } from "../secrets/seal";
import type { Spec } from "./servers";

/**
 * OAuth for remote tool servers (authorization code with PKCE, dynamic client
 * registration when the authorization server offers it — the client library does the
 * protocol): what it keeps — the registered client, the tokens, the PKCE verifier and the
 * state of a flow under way — is one team secret per server (kind "oauth", sealed like any
 * other, never shown), shared by the team. An owner or admin connects a server from the
 * Team page; the tokens are refreshed by the library when the server refuses an expired
 * one, and ahead of expiry at each connection. Without tokens, a call fails with
 * "Connect <server>" instead of a raw error.
 */

/** Where the authorization server sends the browser back. */
export const CALLBACK_PATH = "/api/mcp/oauth/callback";

const Stored = z.object({
  client: z.record(z.string(), z.unknown()).optional(),
  tokens: z.object({ access_token: z.string(), token_type: z.string(), refresh_token: z.string().optional(), expires_in: z.number().optional(), scope: z.string().optional() }).loose().optional(),
  /** When the tokens were saved (ms): with expires_in, when they expire. */
  savedAt: z.number().optional(),
  verifier: z.string().optional(),
  state: z.string().optional(),
  redirectUrl: z.string().optional(),
});
type Stored = z.infer<typeof Stored>;

/** The callback of one server's flow on this site: the team, the server and its project are in its query. */
export function callbackUrl(base: string, teamId: string, spec: Pick<Spec, "key">, projectId: string | undefined): string {
  const url = new URL(CALLBACK_PATH, base);
  url.searchParams.set("team", teamId);
  url.searchParams.set("server", spec.key);
  if (projectId) url.searchParams.set("project", projectId);
  return url.toString();
}

/** The secret a server's OAuth data lives in: the team's, or one member's (team secret names are lower-case). */
export function secretName(spec: Pick<Spec, "key">, member?: string): string {
  return `oauth.${createHash("sha256").update(member ? `${spec.key}\u0000${member}` : spec.key).digest("hex").slice(0, 24)}`;
}

/** The error of a call to a server that needs (new) authorization: its message is what the member sees. */
export class NeedsConnectError extends Error {
  override name = "NeedsConnectError";
  constructor(
    readonly server: string,
    perMember = false,
  ) {
    super(
      perMember
        ? `Connect ${server}: this tool server needs your own authorization. Connect it on the Team page (Tool servers → Connect ${server}), then the call can be made again.`
        : `Connect ${server}: this tool server needs authorization. An owner or admin connects it on the Team page (Tool servers → Connect ${server}), then the call can be made again.`,
    );
  }
}

type Store = { db: Db; keyring: Keyring; clock: Clock };

export class StoredOAuth implements OAuthClientProvider {
  /** Set when the library wants the browser sent to the authorization server. */
  authorizationUrl: URL | undefined;

  private constructor(
    private readonly s: Store,
    private readonly teamId: string,
    private readonly spec: Spec,
    private data: Stored,
    private readonly userId: string | null,
    private readonly redirect: string | undefined,
    private readonly name: string,
  ) {}

  /** The stored data of a server for the team — or, for a server connected per member, for `userId`. */
  static async load(s: Store, teamId: string, spec: Spec, options: { userId?: string; redirectUrl?: string } = {}): Promise<StoredOAuth> {
    if (spec.oauthPerMember && !options.userId) throw new NeedsConnectError(spec.name, true);
    const name = secretName(spec, spec.oauthPerMember ? options.userId : undefined);
    const text = await Secrets.revealIfAny(s, teamId, name);
    const parsed = text === undefined ? undefined : Stored.safeParse(JSON.parse(text));
    return new StoredOAuth(s, teamId, spec, parsed?.success ? parsed.data : {}, options.userId ?? null, options.redirectUrl, name);
  }

  private async save(patch: Partial<Stored>): Promise<void> {
    this.data = { ...this.data, ...patch };
    await Secrets.store(this.s, this.teamId, { name: this.name, kind: "oauth", value: JSON.stringify(this.data), userId: this.userId });
  }

  get redirectUrl(): string {
    const url = this.redirect ?? this.data.redirectUrl;
    if (!url) throw new NeedsConnectError(this.spec.name, this.spec.oauthPerMember);
    return url;
  }

  get clientMetadata() {
    return { redirect_uris: [this.redirectUrl], client_name: "Parley", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }

  clientInformation(): OAuthClientInformation | undefined {
    const client = this.data.client;
    return client && typeof client.client_id === "string" ? { ...client, client_id: client.client_id } : undefined;
  }

  isClientInformationDynamicallyRegistered(): boolean {
    return this.data.client !== undefined;
  }

  async saveClientInformation(info: OAuthClientInformation): Promise<void> {
    await this.save({ client: { ...info } });
  }

  tokens(): OAuthTokens | undefined {
    return this.data.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.save({ tokens: { ...tokens }, savedAt: this.s.clock.now(), verifier: undefined, state: undefined });
  }

  /** Whether the tokens expire within `ms` (and can be refreshed). */
  expiresWithin(ms: number): boolean {
    const { tokens, savedAt } = this.data;
    return tokens?.refresh_token !== undefined && tokens.expires_in !== undefined && savedAt !== undefined && savedAt + tokens.expires_in * 1000 - this.s.clock.now() < ms;
  }

  get connected(): boolean {
    return this.data.tokens !== undefined;
  }

  redirectToAuthorization(url: URL): void {
    // Outside a member's "Connect" (no redirect base), nobody can be sent there: the call says so.
    if (!this.redirect) throw new NeedsConnectError(this.spec.name, this.spec.oauthPerMember);
    this.authorizationUrl = url;
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.save({ verifier, ...(this.redirect ? { redirectUrl: this.redirect } : {}) });
  }

  codeVerifier(): string {
    if (!this.data.verifier) throw new UnauthorizedError("no authorization is under way");
    return this.data.verifier;
  }

  async state(): Promise<string> {
    const state = randomBytes(24).toString("base64url");
    await this.save({ state });
    return state;
  }

  storedState(): string | undefined {
    return this.data.state;
  }

  /** Whether a callback's state is the one this flow sent (constant time). */
  matches(state: string): boolean {
    const stored = this.data.state;
    if (!stored || stored.length !== state.length) return false;
    return timingSafeEqual(Buffer.from(stored), Buffer.from(state));
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier"): Promise<void> {
    if (scope === "all") await this.save({ client: undefined, tokens: undefined, verifier: undefined, state: undefined });
    else if (scope === "client") await this.save({ client: undefined });
    else if (scope === "tokens") await this.save({ tokens: undefined });
    else await this.save({ verifier: undefined });
  }
}
