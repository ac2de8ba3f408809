import { Search } from "../../search";
import { procedure, router } from "../init";

export const searchRouter = router({
  /** The team's sessions matching a query (title, message text, tool titles and outputs, paths), with snippets. */
  sessions: procedure.input(Search.SearchInput).query(({ ctx, input }) => Search.sessions(ctx, input)),
});
