import type { AccessEnded } from "../live/access";
import { type BetterAuthOptions, betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { generateRandomString } from "better-auth/crypto";
import { organization } from "better-auth/plugins/organization";
import type { Db } from "../db/client";
import { isParleyError } from "../errors";
import * as Id from "../id";
import { ownOrigin } from "../origin";
import { AccountAttempts } from "./attempts";
import { CLIENT_ADDRESS_HEADER } from "./client-address";
import { COOKIE_PREFIX } from "./paths";
import { INVITATION_HEADER, type SignUpPolicy, checkSignUp, initialTeam, setUpNewUser } from "./policy";
import { checkTeamFields, checkUserFields } from "./profile";
import { afterTeamRequest, beforeTeamRequest } from "./team-requests";
import { PASSWORD_LENGTH } from "../../lib/password";

/**
 * Sign-in and teams through better-auth (email + password, its organization plugin for
 * teams, roles owner / admin / member and invitations), on Parley's own tables: its
 * user is User, its organization Team, its member Membership, its session AuthSession.
 * Passwords are hashed and cookies signed by better-auth; nothing here does crypto.
 */
export interface AuthOptions extends SignUpPolicy {
  db: Db;
  secret: string;
  /** Public base URL (config publicUrl); without it each request's own origin is used. */
  publicUrl: string | undefined;
  /** Sign-in and sign-up rate limits; undefined: better-auth's default (on in production). */
  rateLimit?: boolean | undefined;
  /** Counts sign-in attempts per account (when rate limits are on). */
  accountAttempts?: AccountAttempts;
  /** Told when access ends (a sign-in deleted, a member removed, a user deleted): live streams end with it. */
  onAccessEnded?: (ended: AccessEnded) => void;
}

/** better-auth's model names → Parley's id kinds, so its records get prefixed, sortable ids. */
const ID_KINDS: Record<string, Id.IdKind> = {
  user: "user",
  session: "authSession",
  account: "account",
  verification: "verification",
  organization: "team",
  member: "membership",
};

/**
 * An invitation's id is the secret of its link (Parley sends no email; the admin passes
 * the link on), so it is opaque: 32 random characters (about 190 bits), not a sortable id.
 */
function invitationId(): string {
  return `${Id.PREFIXES.invitation}_${generateRandomString(32, "a-z", "A-Z", "0-9")}`;
}

/** Errors of Parley's policy reach the client as better-auth errors with their message. */
async function asApiError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isParleyError(error) && error.code === "FORBIDDEN") throw new APIError("FORBIDDEN", { message: error.message });
    if (isParleyError(error) && error.code === "INVALID") throw new APIError("BAD_REQUEST", { message: error.message });
    throw error;
  }
}

const ROLES = new Set(["owner", "admin", "member"]);

/** A clear 400 for a role Parley does not have, instead of a database error. */
async function checkRole(role: string | string[]): Promise<void> {
  const value = Array.isArray(role) ? role.join(",") : role;
  if (!ROLES.has(value)) {
    throw new APIError("BAD_REQUEST", { message: `role must be one of owner, admin, member (got "${value}")` });
  }
}

/**
 * Sign-in attempts per account, from any address (better-auth's own limit is per address):
 * 429 once an account has had too many.
 */
function checkAccountAttempts(attempts: AccountAttempts, path: string, body: unknown): void {
  if (path !== "/sign-in/email") return;
  const email = typeof body === "object" && body !== null && "email" in body && typeof body.email === "string" ? body.email : undefined;
  if (!email) return;
  const verdict = attempts.attempt(email);
  if (!verdict.allowed) {
    throw new APIError("TOO_MANY_REQUESTS", { message: "Too many sign-in attempts for this account. Please try again later." }, { "X-Retry-After": String(verdict.retryAfterSeconds) });
  }
}

/** Before every endpoint: the per-account sign-in limit (when rate limits are on), then Parley's word on team requests (team-requests.ts). */
function beforeRequests(attempts: AccountAttempts | undefined) {
  return createAuthMiddleware(async (ctx) => {
    const body: unknown = ctx.body;
    if (attempts) checkAccountAttempts(attempts, ctx.path, body);
    const changed = beforeTeamRequest(ctx.path, body);
    return changed ? { context: { body: changed.body } } : undefined;
  });
}

/** After every endpoint: Parley's own errors instead of the organization plugin's (team-requests.ts). */
function afterRequests(db: Db) {
  return createAuthMiddleware(async (ctx) => {
    await afterTeamRequest(db, ctx.path, ctx.body, ctx.context.returned, async () => (await getSessionFromCtx(ctx))?.session.activeOrganizationId ?? undefined);
  });
}

export function createAuth(options: AuthOptions) {
  const { db } = options;
  const secure = options.publicUrl?.startsWith("https://") ?? false;
  const rateLimited = options.rateLimit ?? process.env.NODE_ENV === "production";
  return betterAuth({
    appName: "Parley",
    secret: options.secret,
    // Without a public URL, each request's base is the URL it arrived on, and the one
    // origin trusted is its own (server/origin.ts): never every host.
    baseURL: options.publicUrl,
    trustedOrigins: (request) => (request ? [ownOrigin(request, options.publicUrl)] : []),
    database: prismaAdapter(db, { provider: "postgresql" }),
    telemetry: { enabled: false },
    // No OpenTelemetry spans around every auth call: Parley exports no traces.
    experimental: { instrumentation: { enabled: false } },
    rateLimit: options.rateLimit === undefined ? undefined : { enabled: options.rateLimit },
    emailAndPassword: { enabled: true, minPasswordLength: PASSWORD_LENGTH.min, maxPasswordLength: PASSWORD_LENGTH.max, autoSignIn: true },
    session: { modelName: "authSession" },
    hooks: { before: beforeRequests(rateLimited ? (options.accountAttempts ?? new AccountAttempts()) : undefined), after: afterRequests(db) },
    advanced: {
      // On in every environment (better-auth turns it off under NODE_ENV=test): tests see what production does.
      disableOriginCheck: false,
      // The client's address as the server resolved it (server/auth/client-address.ts), not a client's X-Forwarded-For.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: secure,
      database: {
        generateId: ({ model }) => {
          if (model === "invitation") return invitationId();
          const kind = ID_KINDS[model];
          if (!kind) throw new Error(`no id kind for better-auth model "${model}"`);
          return Id.ascending(kind);
        },
      },
    },
    databaseHooks: databaseHooks(db, options),
    plugins: [teams(options)],
  });
}

/** Checks and set-up around better-auth's writes: users (fields, who may sign up, a new user's team), sign-ins (the first team; ended access reported). */
function databaseHooks(db: Db, options: AuthOptions): BetterAuthOptions["databaseHooks"] {
  return {
    user: {
      create: {
        before: async (user, ctx) => {
          await asApiError(async () => checkUserFields(user, false));
          const invitationId = ctx?.headers?.get(INVITATION_HEADER) ?? undefined;
          await asApiError(() => checkSignUp(db, options, user.email, invitationId));
        },
        after: async (user) => {
          await setUpNewUser(db, options, user);
        },
      },
      // update-user: a name or image is checked like at sign-up.
      update: { before: async (user) => asApiError(async () => checkUserFields(user, true)) },
    },
    session: {
      // Signing out, revoking sign-ins, deleting the user: each deleted sign-in is reported.
      delete: {
        after: async (session) => {
          options.onAccessEnded?.({ userId: session.userId, authSessionId: session.id });
        },
      },
      create: {
        // A new sign-in starts in the user's first team (the team switcher changes it).
        before: async (session) => {
          const teamId = await initialTeam(db, session.userId);
          return { data: { ...session, activeOrganizationId: teamId ?? null } };
        },
      },
    },
  };
}

/** Teams are better-auth organizations, renamed to Parley's tables, with Parley's checks on names, roles and removals. */
function teams(options: AuthOptions) {
  return organization({
    // Teams are Parley's, not better-auth's sub-teams of an organization.
    teams: { enabled: false },
    disableOrganizationDeletion: true,
    invitationExpiresIn: 7 * 24 * 60 * 60,
    cancelPendingInvitationsOnReInvite: true,
    // Emails are not verified (no mail server). Accepting needs the invitation's link —
    // its opaque id — and a sign-in with the invited email; listing one's invitations by
    // email alone stays refused by better-auth for unverified emails.
    requireEmailVerificationOnInvitation: false,
    // better-auth accepts lists of roles ("admin,member"); a Parley member has exactly one.
    organizationHooks: {
      // Name, slug, logo and metadata reach every member's pages: bounded and allow-listed.
      beforeCreateOrganization: async ({ organization }) => asApiError(async () => checkTeamFields(organization)),
      beforeUpdateOrganization: async ({ organization }) => asApiError(async () => checkTeamFields(organization)),
      beforeUpdateMemberRole: async ({ newRole }) => checkRole(newRole),
      afterRemoveMember: async ({ member }) => {
        options.onAccessEnded?.({ userId: member.userId, teamId: member.organizationId });
      },
      beforeAddMember: async ({ member }) => checkRole(member.role),
      beforeCreateInvitation: async ({ invitation }) => checkRole(invitation.role),
    },
    schema: {
      session: { fields: { activeOrganizationId: "activeTeamId" } },
      organization: { modelName: "team" },
      member: { modelName: "membership", fields: { organizationId: "teamId" } },
      invitation: { modelName: "invitation", fields: { organizationId: "teamId" } },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
