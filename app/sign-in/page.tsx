import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard, SignInForm } from "@/components/auth/auth-form";
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
  if (await isFreshInstall((await runtime()).services.db)) redirect("/sign-up");
  const invitation = /^\/invite\/([^/?#]+)$/.exec(next)?.[1];
  const signUpHref = invitation ? `/sign-up?invitation=${encodeURIComponent(invitation)}` : "/sign-up";
  return (
    <AuthCard title="Sign in to Parley">
      <SignInForm next={next} signUpHref={signUpHref} />
    </AuthCard>
  );
}
