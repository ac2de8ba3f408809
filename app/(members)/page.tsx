import { Suspense } from "react";
import { SessionList } from "@/components/session/session-list";
import { Loading } from "@/components/ui/feedback";
import { currentSignedIn } from "@/server/auth/page";

export default async function Home() {
  // Read once per request (the layout's access check read it already).
  const signedIn = await currentSignedIn();
  return (
    <Suspense fallback={<Loading />}>
      <SessionList viewerId={signedIn?.user.id} />
    </Suspense>
  );
}
