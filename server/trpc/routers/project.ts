import { Project } from "../../project";
import { procedure, router } from "../init";

export const projectRouter = router({
  list: procedure.query(({ ctx }) => Project.list(ctx)),
});
