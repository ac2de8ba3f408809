import { ShareLinks, ShareView } from "../../share";
import { procedure, publicProcedure, router } from "../init";

export const shareRouter = router({
  /** Members: the server's share mode, so the UI can explain a disabled share button. */
  mode: procedure.query(({ ctx }) => ({ mode: ctx.settings.share })),
  /** Members: the team's shared links. */
  listShares: procedure.input(ShareLinks.ListInput).query(({ ctx, input }) => ShareLinks.list(ctx, input)),
  /** Anyone holding the link: a page of the shared session (or a descendant), read-only. */
  page: publicProcedure
    .input(ShareView.PageInput)
    .query(({ ctx, input }) => ShareView.page(ctx.viewer.db, input, { publicUrl: ctx.viewer.publicUrl, mode: ctx.viewer.mode, dataDir: ctx.viewer.dataDir })),
  /** Anyone holding the link: what a turn of the shared session changed (secret files left out). */
  diff: publicProcedure
    .input(ShareView.DiffInput)
    .query(({ ctx, input }) => ShareView.diff(ctx.viewer, input, { publicUrl: ctx.viewer.publicUrl, mode: ctx.viewer.mode, dataDir: ctx.viewer.dataDir })),
});
