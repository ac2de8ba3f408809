import type { Metadata } from "next";

export const metadata: Metadata = { title: "Link not found", robots: { index: false, follow: false } };

export default function ShareNotFound() {
  return (
    <div data-testid="share-not-found" className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-lg font-semibold text-zinc-900">This link does not exist or was revoked</h1>
      <p className="mt-2 text-sm text-zinc-500">Ask the person who shared it with you for a new link.</p>
    </div>
  );
}
