import type { Metadata } from "next";
import { AuthCard } from "@/components/auth/auth-form";
import { CreateTeamForm } from "@/components/auth/create-team";
import { checkPageAccess } from "@/server/auth/page";

export const metadata: Metadata = { title: "Teams" };

/**
 * For a signed-in user with no team, or wanting another: create one. (Joining a team
 * takes the invitation link an admin passes on: emails are not verified, so invitations
 * are never listed by email alone.)
 */
export default async function WelcomePage() {
  const signedIn = await checkPageAccess();
  const title = signedIn?.team ? "Create another team" : "You are not in a team yet";
  return (
    <AuthCard title={title} subtitle="Open the invitation link a team admin gave you to join their team, or create a team of your own.">
      <CreateTeamForm />
    </AuthCard>
  );
}
