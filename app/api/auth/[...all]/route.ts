import { handleAuthRequest } from "@/server/auth/instance";

export const dynamic = "force-dynamic";

/** better-auth's endpoints: sign-up, sign-in, sign-out, teams (organizations), invitations. */
async function handler(req: Request): Promise<Response> {
  return handleAuthRequest(req);
}

export { handler as GET, handler as POST };
