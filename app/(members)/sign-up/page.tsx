import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AuthCard, SignUpForm } from "@/components/auth/auth-form";
import { buttonClass } from "@/components/ui/button";
import { invitationPreview } from "@/server/auth/invitation";
import { currentSignedIn } from "@/server/auth/page";
import { isFreshInstall } from "@/server/auth/policy";
import { runtime } from "@/server/runtime";

export const metadata: Metadata = { title: "Sign up" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * Sign-up: the first visitor creates the first team; with an invitation link, the invited
 * email (prefilled) joins the inviting team; otherwise, in "open" mode anyone gets a team
 * of their own, while in "invite" mode (the default) the page says how to get an
 * invitation instead of showing a form nobody without one could use.
 */
export default async function SignUpPage({ searchParams }: { searchParams: SearchParams }) {
  const query = await searchParams;
  const invitationId = typeof query.invitation === "string" && query.invitation ? query.invitation : undefined;
  const signedIn = await currentSignedIn();
  if (signedIn) redirect(invitationId ? `/invite/${encodeURIComponent(invitationId)}` : "/");
  const rt = await runtime();
  const fresh = await isFreshInstall(rt.services.db);
  const invitation = invitationId ? await invitationPreview(rt.services.db, invitationId) : undefined;
  const signInHref = invitation ? `/sign-in?next=${encodeURIComponent(`/invite/${invitation.id}`)}` : "/sign-in";
  if (!fresh && !invitation && rt.config.signUp === "invite") {
    return (
      <AuthCard title={invitationId ? "This invitation is no longer valid" : "Parley is invitation-only here"}>
        <div data-testid="invite-only" className="space-y-3 text-sm text-zinc-700">
          <p>
            {invitationId
              ? "The link was cancelled, already used or has expired."
              : "New accounts on this server are made from an invitation link, which an owner or admin of a team creates on their team page and passes on to you."}{" "}
            Ask them for {invitationId ? "a new link" : "one"}; opening it lets you sign up with the email address it was made for.
          </p>
          <p>Already have an account?</p>
          <Link href={signInHref} className={buttonClass("primary", "md", "w-full")}>
            Sign in
          </Link>
        </div>
      </AuthCard>
    );
  }
  const subtitle = invitation
    ? `${invitation.inviterName} invited ${invitation.email} to join ${invitation.teamName}: create your account to accept.`
    : fresh
      ? "You are the first here: your account creates the first team."
      : "Your account comes with a team of your own; teammates can invite you to theirs.";
  return (
    <AuthCard title="Create your Parley account" subtitle={<span data-testid="sign-up-hint">{subtitle}</span>}>
      <SignUpForm invitationId={invitation?.id} signInHref={signInHref} email={invitation?.email} />
    </AuthCard>
  );
}
