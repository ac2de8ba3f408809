import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/trpc/client";
import { Header } from "@/components/ui/header";
import { checkPageAccess } from "@/server/auth/page";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Parley", template: "%s · Parley" },
  description: "AI agent sessions for teams",
};

export const viewport: Viewport = { themeColor: "#ffffff", width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page's server-side access check (server/auth/page.ts): sign-in and team membership.
  const account = await checkPageAccess();
  return (
    <html lang="en">
      <body className="min-h-dvh">
        <TRPCReactProvider>
          <Header account={account} />
          <main className="mx-auto max-w-5xl px-4 pt-6 pb-24 sm:px-6 sm:pt-8">{children}</main>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
