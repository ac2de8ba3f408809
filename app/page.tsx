import { Suspense } from "react";
import { SessionList } from "@/components/session/session-list";
import { Loading } from "@/components/ui/feedback";

export default function Home() {
  return (
    <Suspense fallback={<Loading />}>
      <SessionList />
    </Suspense>
  );
}
