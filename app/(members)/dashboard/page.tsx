import type { Metadata } from "next";
import { Suspense } from "react";
import { Dashboard } from "@/components/dashboard/dashboard";
import { Loading } from "@/components/ui/feedback";

export const metadata: Metadata = { title: "Dashboard" };

export default function DashboardPage() {
  return (
    <Suspense fallback={<Loading label="Loading the dashboard…" />}>
      <Dashboard />
    </Suspense>
  );
}
