import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError } from "better-auth/api";
import { generateRandomString } from "better-auth/crypto";
import { organization } from "better-auth/plugins/organization";
import type { Db } from "../db/client";
import { isParleyError } from "../errors";
import * as Id from "../id";
import { COOKIE_PREFIX } from "./paths";
import { type SignUpPolicy, checkSignUp, initialTeam, setUpNewUser } from "./policy";

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

export function createAuth(options: AuthOptions) {
  const { db } = options;
  const secure = options.publicUrl?.startsWith("https://") ?? false;
  return betterAuth({
    appName: "Parley",
    secret: options.secret,
    // Without a public URL, the origin of each request is the app's (its Host header).
    baseURL: options.publicUrl ?? { allowedHosts: ["*"], protocol: "auto", fallback: "http://localhost" },
    database: prismaAdapter(db, { provider: "postgresql" }),
    telemetry: { enabled: false },
    rateLimit: options.rateLimit === undefined ? undefined : { enabled: options.rateLimit },
    emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128, autoSignIn: true },
    session: { modelName: "authSession" },
    advanced: {
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
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            await asApiError(() => checkSignUp(db, options, user.email));
          },
          after: async (user) => {
            await setUpNewUser(db, options, user);
          },
        },
      },
      session: {
        create: {
          // A new sign-in starts in the user's first team (the team switcher changes it).
          before: async (session) => {
            const teamId = await initialTeam(db, session.userId);
            return { data: { ...session, activeOrganizationId: teamId ?? null } };
          },
        },
      },
    },
    plugins: [
      organization({
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
          beforeUpdateMemberRole: async ({ newRole }) => checkRole(newRole),
          beforeAddMember: async ({ member }) => checkRole(member.role),
          beforeCreateInvitation: async ({ invitation }) => checkRole(invitation.role),
        },
        schema: {
          session: { fields: { activeOrganizationId: "activeTeamId" } },
          organization: { modelName: "team" },
          member: { modelName: "membership", fields: { organizationId: "teamId" } },
          invitation: { modelName: "invitation", fields: { organizationId: "teamId" } },
        },
      }),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
