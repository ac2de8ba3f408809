import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ShareView } from "@/components/share/share-view";
import { sharedLanguages } from "@/components/share/shared-markdown";
import { type SharePage, shareHref } from "@/components/share/types";
import { isParleyError } from "@/server/errors";
import { loadLanguages } from "@/lib/highlight";
import { runtime } from "@/server/runtime";
import { ShareView as ShareModule } from "@/server/share";

export const dynamic = "force-dynamic";

/** Messages rendered per page; "Load older messages" shows one page more (`?shown=`). */
const PAGE = 50;
/** The most messages one render shows (a very long session is read page by page). */
const MOST = 2_000;

type Params = Promise<{ shareId: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * The share's data, read straight from the share module with no member context: the
 * share id is the only credential. Unknown, revoked or malformed ids, a session outside
 * the shared tree, and every link while sharing is disabled are all "not found". `shown`
 * newest messages are read, a page at a time.
 */
const load = cache(async (shareId: string, sessionId: string | undefined, shown: number): Promise<SharePage | undefined> => {
  const rt = await runtime();
  if (rt.config.share === "disabled") return undefined;
  const { settings } = rt.services;
  const options = { publicUrl: settings.publicUrl, mode: settings.share, dataDir: settings.dataDir, projectsRoot: settings.projectsRoot };
  try {
    const page = await ShareModule.page(rt.services, { shareId, sessionId, limit: PAGE }, options);
    let { messages, cursor, corrupt } = page.messages;
    while (cursor && messages.length < shown) {
      const older = await ShareModule.page(rt.services, { shareId, sessionId, limit: Math.min(PAGE, shown - messages.length), before: cursor }, options);
      messages = [...older.messages.messages, ...messages];
      corrupt = [...older.messages.corrupt, ...corrupt];
      cursor = older.messages.cursor;
    }
    return { ...page, messages: { messages, cursor, corrupt } };
  } catch (error) {
    if (isParleyError(error) && (error.code === "NOT_FOUND" || error.code === "INVALID")) return undefined;
    throw error;
  }
});

async function resolve(params: Params, searchParams: SearchParams) {
  const [{ shareId }, query] = await Promise.all([params, searchParams]);
  const session = typeof query.session === "string" ? query.session : undefined;
  const asked = typeof query.shown === "string" ? Number.parseInt(query.shown, 10) : PAGE;
  const shown = Number.isFinite(asked) ? Math.min(Math.max(asked, PAGE), MOST) : PAGE;
  return { page: await load(shareId, session, shown), shown };
}

export async function generateMetadata({ params, searchParams }: { params: Params; searchParams: SearchParams }): Promise<Metadata> {
  const { page } = await resolve(params, searchParams);
  return { title: page ? page.session.title : "Link not found", robots: { index: false, follow: false } };
}

/**
 * A shared session, read-only and public, rendered here on the server — markdown and
 * highlighted code included (components/share/share-view.tsx) — and kept live by the
 * server rendering it again as it changes.
 */
export default async function SharePage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { page, shown } = await resolve(params, searchParams);
  if (!page) notFound();
  await loadLanguages(sharedLanguages(page.messages.messages));
  const base = shareHref(page.share.id, page.root.id, page.session.id);
  const olderHref = page.messages.cursor && shown < MOST ? `${base}${base.includes("?") ? "&" : "?"}shown=${shown + PAGE}` : undefined;
  return <ShareView key={page.session.id} page={page} olderHref={olderHref} />;
}
