import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard, SignUpForm } from "@/components/auth/auth-form";
import { currentSignedIn } from "@/server/auth/page";
import { isFreshInstall } from "@/server/auth/policy";
import { runtime } from "@/server/runtime";

export const metadata: Metadata = { title: "Sign up" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function SignUpPage({ searchParams }: { searchParams: SearchParams }) {
  const query = await searchParams;
  const invitationId = typeof query.invitation === "string" && query.invitation ? query.invitation : undefined;
  const signedIn = await currentSignedIn();
  if (signedIn) redirect(invitationId ? `/invite/${encodeURIComponent(invitationId)}` : "/");
  const rt = await runtime();
  const fresh = await isFreshInstall(rt.services.db);
  const subtitle = invitationId
    ? "Create your account to join the team that invited you."
    : fresh
      ? "You are the first here: your account creates the first team."
      : rt.config.signUp === "open"
        ? "Your account comes with a team of your own; teammates can invite you to theirs."
        : "Signing up needs an invitation: ask an admin of your team for an invitation link.";
  const signInHref = invitationId ? `/sign-in?next=${encodeURIComponent(`/invite/${invitationId}`)}` : "/sign-in";
  return (
    <AuthCard title="Create your Parley account" subtitle={<span data-testid="sign-up-hint">{subtitle}</span>}>
      <SignUpForm invitationId={invitationId} signInHref={signInHref} />
    </AuthCard>
  );
}
