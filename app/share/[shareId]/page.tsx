import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ShareViewer } from "@/components/share/share-viewer";
import { isParleyError } from "@/server/errors";
import { runtime } from "@/server/runtime";
import { ShareView } from "@/server/share";

export const dynamic = "force-dynamic";

/** Messages rendered on the server; older ones are paged in by the viewer. */
const FIRST_PAGE = 50;

type Params = Promise<{ shareId: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * The share's data, read straight from the share module with no member context: the
 * share id is the only credential. Unknown, revoked or malformed ids, a session outside
 * the shared tree, and every link while sharing is disabled are all "not found".
 */
const load = cache(async (shareId: string, sessionId: string | undefined) => {
  const rt = await runtime();
  if (rt.config.share === "disabled") return undefined;
  try {
    const { settings } = rt.services;
    return await ShareView.page(rt.services, { shareId, sessionId, limit: FIRST_PAGE }, { publicUrl: settings.publicUrl, mode: settings.share, dataDir: settings.dataDir, projectsRoot: settings.projectsRoot });
  } catch (error) {
    if (isParleyError(error) && (error.code === "NOT_FOUND" || error.code === "INVALID")) return undefined;
    throw error;
  }
});

async function resolve(params: Params, searchParams: SearchParams) {
  const [{ shareId }, query] = await Promise.all([params, searchParams]);
  const session = typeof query.session === "string" ? query.session : undefined;
  return load(shareId, session);
}

export async function generateMetadata({ params, searchParams }: { params: Params; searchParams: SearchParams }): Promise<Metadata> {
  const page = await resolve(params, searchParams);
  return { title: page ? page.session.title : "Link not found", robots: { index: false, follow: false } };
}

/** A shared session, read-only and public: the first page is in the HTML, the rest live. */
export default async function SharePage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const page = await resolve(params, searchParams);
  if (!page) notFound();
  return <ShareViewer key={page.session.id} initial={page} />;
}
