import { z } from "zod";
import * as Id from "../../id";
import { Project } from "../../project";
import { procedure, router } from "../init";

export const projectRouter = router({
  list: procedure.query(({ ctx }) => Project.list(ctx)),
  /** Where admins may register project directories (admins only). */
  root: procedure.query(({ ctx }) => Project.root(ctx, { root: ctx.settings.projectsRoot })),
  create: procedure.input(Project.CreateInput).mutation(({ ctx, input }) => Project.create(ctx, input, { root: ctx.settings.projectsRoot })),
  remove: procedure.input(z.object({ projectId: Id.schema("project") })).mutation(({ ctx, input }) => Project.remove(ctx, input.projectId)),
});
