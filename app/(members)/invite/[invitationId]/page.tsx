import type { Metadata } from "next";
import { isAPIError } from "better-auth/api";
import { headers } from "next/headers";
import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-form";
import { AcceptInvitation } from "@/components/auth/accept-invitation";
import { buttonClass } from "@/components/ui/button";
import { invitationPreview } from "@/server/auth/invitation";
import { getAuth } from "@/server/auth/instance";
import { currentSignedIn } from "@/server/auth/page";
import { runtime } from "@/server/runtime";

export const metadata: Metadata = { title: "Invitation", robots: { index: false, follow: false } };

const article = (role: string) => (role === "admin" || role === "owner" ? "an" : "a");

/**
 * An invitation link (shown to the admin who invited, to pass on): which team, who
 * invited, and which email. Signed out: sign up or sign in as that email (prefilled) to
 * accept it. Signed in as that email: accept or decline.
 */
export default async function InvitePage({ params }: { params: Promise<{ invitationId: string }> }) {
  const { invitationId } = await params;
  const signedIn = await currentSignedIn();
  const invitation = await invitationPreview((await runtime()).services.db, invitationId);
  if (!invitation) {
    return (
      <AuthCard title="Invitation not found">
        <p data-testid="invitation-invalid" className="text-sm text-zinc-700">
          This invitation was cancelled, already used or has expired. Ask whoever invited you for a new link.
        </p>
        {signedIn ? null : (
          <Link href="/sign-in" className={buttonClass("secondary", "md", "mt-4 w-full")}>
            Sign in
          </Link>
        )}
      </AuthCard>
    );
  }
  const who = (
    <span data-testid="invitation-summary">
      <strong className="font-semibold text-zinc-900">{invitation.inviterName}</strong> ({invitation.inviterEmail}) invited{" "}
      <strong className="font-semibold text-zinc-900">{invitation.email}</strong> to join <strong className="font-semibold text-zinc-900">{invitation.teamName}</strong> as{" "}
      {article(invitation.role)} {invitation.role}.
    </span>
  );
  const here = `/invite/${encodeURIComponent(invitation.id)}`;
  if (!signedIn) {
    return (
      <AuthCard title={`Join ${invitation.teamName} on Parley`} subtitle={who}>
        <p className="mb-4 text-sm text-zinc-700">Create an account with {invitation.email}, or sign in if you already have one.</p>
        <div className="flex flex-col gap-2">
          <Link href={`/sign-up?invitation=${encodeURIComponent(invitation.id)}`} className={buttonClass("primary", "md", "w-full")}>
            Sign up to accept
          </Link>
          <Link href={`/sign-in?next=${encodeURIComponent(here)}`} className={buttonClass("secondary", "md", "w-full")}>
            Sign in
          </Link>
        </div>
      </AuthCard>
    );
  }
  // Accepting needs a sign-in with the invited email (better-auth checks it again on accept).
  const auth = await getAuth();
  const forMe = await auth.api.getInvitation({ query: { id: invitation.id }, headers: await headers() }).catch((error: unknown) => {
    // Refused: the invitation is for another email than the signed-in one.
    if (isAPIError(error)) return null;
    throw error;
  });
  if (!forMe) {
    return (
      <AuthCard title={`Join ${invitation.teamName} on Parley`} subtitle={who}>
        <p data-testid="invitation-invalid" className="text-sm text-zinc-700">
          You are signed in as {signedIn.user.email}. To accept, sign out and sign in (or sign up) as {invitation.email}.
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={`Join ${invitation.teamName}`} subtitle={who}>
      <AcceptInvitation invitationId={invitation.id} />
    </AuthCard>
  );
}
