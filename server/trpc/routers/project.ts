import { z } from "zod";
import * as Id from "../../id";
import { Project } from "../../project";
import { procedure, router } from "../init";

export const projectRouter = router({
  list: procedure.query(({ ctx }) => Project.list(ctx)),
  /** Where admins may register project directories (admins only). */
  root: procedure.query(({ ctx }) => Project.root(ctx, { root: ctx.settings.projectsRoot })),
  create: procedure.input(Project.CreateInput).mutation(({ ctx, input }) => Project.create(ctx, input, { root: ctx.settings.projectsRoot })),
  /** Adds a project by cloning a repository (admins only). */
  clone: procedure.input(Project.CloneInput).mutation(({ ctx, input }) => Project.clone(ctx, input, { root: ctx.settings.projectsRoot })),
  /** Adds a new, empty repository (admins only). */
  createEmpty: procedure.input(Project.CreateEmptyInput).mutation(({ ctx, input }) => Project.createEmpty(ctx, input, { root: ctx.settings.projectsRoot })),
  branches: procedure.input(z.object({ projectId: Id.schema("project") })).query(({ ctx, input }) => Project.branches(ctx, input.projectId)),
  fetch: procedure.input(z.object({ projectId: Id.schema("project") })).mutation(({ ctx, input }) => Project.fetch(ctx, input.projectId)),
  setDefaultBranch: procedure
    .input(z.object({ projectId: Id.schema("project"), branch: Project.SetDefaultBranchInput.shape.branch }))
    .mutation(({ ctx, input }) => Project.setDefaultBranch(ctx, input.projectId, input.branch)),
  remove: procedure.input(z.object({ projectId: Id.schema("project") })).mutation(({ ctx, input }) => Project.remove(ctx, input.projectId)),
});
