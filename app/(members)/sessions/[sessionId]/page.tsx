import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SessionPage } from "@/components/session/session-page";
import { currentSignedIn } from "@/server/auth/page";
import * as Id from "@/server/id";

export const metadata: Metadata = { title: "Session" };

export default async function Page({ params }: { params: Promise<{ sessionId: string }> }) {
  const { sessionId } = await params;
  // A link made before ids had a 64-bit time field: the session has had a new id since.
  const current = Id.fromLegacy(sessionId);
  if (current) redirect(`/sessions/${current}`);
  // Read once per request (the layout's access check read it already).
  const signedIn = await currentSignedIn();
  return <SessionPage key={sessionId} sessionId={sessionId} viewerId={signedIn?.user.id} />;
}
