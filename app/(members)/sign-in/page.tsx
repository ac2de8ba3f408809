import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard, SignInForm } from "@/components/auth/auth-form";
import { invitationPreview } from "@/server/auth/invitation";
import { currentSignedIn } from "@/server/auth/page";
import { safeNext } from "@/server/auth/paths";
import { isFreshInstall } from "@/server/auth/policy";
import { runtime } from "@/server/runtime";

export const metadata: Metadata = { title: "Sign in" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const query = await searchParams;
  const next = safeNext(typeof query.next === "string" ? query.next : undefined);
  if (await currentSignedIn()) redirect(next);
  // Nobody has signed up yet: the first visitor creates the first team.
  const db = (await runtime()).services.db;
  if (await isFreshInstall(db)) redirect("/sign-up");
  const invitationId = /^\/invite\/([^/?#]+)$/.exec(next)?.[1];
  const signUpHref = invitationId ? `/sign-up?invitation=${encodeURIComponent(invitationId)}` : "/sign-up";
  // Signing in to accept an invitation: the invited email is filled in.
  const invitation = invitationId ? await invitationPreview(db, invitationId) : undefined;
  return (
    <AuthCard title="Sign in to Parley" subtitle={invitation ? `Sign in as ${invitation.email} to join ${invitation.teamName}.` : undefined}>
      <SignInForm next={next} signUpHref={signUpHref} email={invitation?.email} />
    </AuthCard>
  );
}
