/** A session's work out of its workspace: `import { Workspace } from "@/server/workspace"`. */
export * as Workspace from "./publish";
