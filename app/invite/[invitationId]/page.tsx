import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-form";
import { AcceptInvitation } from "@/components/auth/accept-invitation";
import { buttonClass } from "@/components/ui/button";
import { getAuth } from "@/server/auth/instance";
import { currentSignedIn } from "@/server/auth/page";

export const metadata: Metadata = { title: "Invitation", robots: { index: false, follow: false } };

/**
 * An invitation link (shown to the admin who invited, to pass on). Signed out: sign up or
 * sign in to accept it. Signed in: the invitation, if it is for this account's email.
 */
export default async function InvitePage({ params }: { params: Promise<{ invitationId: string }> }) {
  const { invitationId } = await params;
  const signedIn = await currentSignedIn();
  const here = `/invite/${encodeURIComponent(invitationId)}`;
  if (!signedIn) {
    return (
      <AuthCard title="You are invited to a team on Parley" subtitle="Sign up with the email address the invitation was sent to, or sign in if you have an account.">
        <div className="flex flex-col gap-2">
          <Link href={`/sign-up?invitation=${encodeURIComponent(invitationId)}`} className={buttonClass("primary", "md", "w-full")}>
            Sign up to accept
          </Link>
          <Link href={`/sign-in?next=${encodeURIComponent(here)}`} className={buttonClass("secondary", "md", "w-full")}>
            Sign in
          </Link>
        </div>
      </AuthCard>
    );
  }
  const auth = await getAuth();
  const invitation = await auth.api.getInvitation({ query: { id: invitationId }, headers: await headers() }).catch(() => null);
  if (!invitation) {
    return (
      <AuthCard title="Invitation not found">
        <p data-testid="invitation-invalid" className="text-sm text-zinc-600">
          This invitation is not for {signedIn.user.email}, or it was cancelled, already used or has expired. Ask the admin who invited you for a new link.
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={`Join ${invitation.organizationName}`} subtitle={`${invitation.inviterEmail} invited ${signedIn.user.email} as ${invitation.role ?? "member"}.`}>
      <AcceptInvitation invitationId={invitation.id} />
    </AuthCard>
  );
}
