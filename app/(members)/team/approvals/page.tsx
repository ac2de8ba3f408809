import type { Metadata } from "next";
import { ApprovalsPage } from "@/components/team/approvals-page";
import { checkPageAccess } from "@/server/auth/page";

export const metadata: Metadata = { title: "Approvals" };

export default async function Page() {
  // A members' route (server/auth/paths.ts): the layout's check sent anyone without a team to /welcome.
  const signedIn = await checkPageAccess();
  if (!signedIn?.team) return null;
  const { role } = signedIn.team;
  // Owners and admins revoke; the server checks the role again on every revoke.
  return <ApprovalsPage key={signedIn.team.id} canRevoke={role === "owner" || role === "admin"} />;
}
