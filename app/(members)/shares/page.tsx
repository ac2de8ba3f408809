import type { Metadata } from "next";
import { SharedLinks } from "@/components/share/shared-links";

export const metadata: Metadata = { title: "Shared links" };

export default function SharesPage() {
  return <SharedLinks />;
}
