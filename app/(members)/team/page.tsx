import type { Metadata } from "next";
import { TeamPage } from "@/components/team/team-page";
import { checkPageAccess } from "@/server/auth/page";

export const metadata: Metadata = { title: "Team" };

export default async function Page() {
  const signedIn = await checkPageAccess();
  // The layout's check sent anyone without a team to /welcome.
  if (!signedIn?.team) return null;
  return <TeamPage key={signedIn.team.id} team={signedIn.team} userId={signedIn.user.id} />;
}
