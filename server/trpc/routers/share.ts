import { ShareLinks, ShareView } from "../../share";
import { procedure, publicProcedure, router } from "../init";

function viewerOptions(viewer: ShareView.Options): ShareView.Options {
  return { publicUrl: viewer.publicUrl, mode: viewer.mode, dataDir: viewer.dataDir, projectsRoot: viewer.projectsRoot };
}

export const shareRouter = router({
  /** Members: the server's share mode, so the UI can explain a disabled share button. */
  mode: procedure.query(({ ctx }) => ({ mode: ctx.settings.share })),
  /** Members: the team's shared links. */
  listShares: procedure.input(ShareLinks.ListInput).query(({ ctx, input }) => ShareLinks.list(ctx, input)),
  /** Anyone holding the link: a page of the shared session (or a descendant), read-only. */
  page: publicProcedure
    .input(ShareView.PageInput)
    .query(({ ctx, input }) => ShareView.page(ctx.viewer, input, viewerOptions(ctx.viewer))),
  /** Anyone holding the link: what a turn of the shared session changed (files the project's read rules hide left out). */
  diff: publicProcedure.input(ShareView.DiffInput).query(({ ctx, input }) => ShareView.diff(ctx.viewer, input, viewerOptions(ctx.viewer))),
});
