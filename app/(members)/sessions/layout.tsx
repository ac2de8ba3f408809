import type { ReactNode } from "react";
import { SessionSidebar } from "@/components/sidebar/session-sidebar";
import { currentSignedIn } from "@/server/auth/page";

/** Every session page has the session sidebar beside it; kept mounted while the member moves between sessions. */
export default async function SessionsLayout({ children }: { children: ReactNode }) {
  // Read once per request (cached: the members' layout's access check read it already).
  const signedIn = await currentSignedIn();
  return (
    <>
      <SessionSidebar viewerId={signedIn?.user.id} />
      {children}
    </>
  );
}
