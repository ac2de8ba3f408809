import type { Services } from "../services";
import { type AgentFile as AgentFileType, AgentFile, type Agents } from "./agent";
import { FrontmatterError, splitFrontmatter } from "./frontmatter";
import { type RepoFiles, readMarkdown } from "./repo-files";
import { FixedReads } from "../workspace/base-cache";
import type { WorkspaceFiles } from "../workspace/workspace";

/**
 * The agents of one session: the server's (built-in and configured) and those its working
 * tree defines in `.opencode/agent/*.md` and `.opencode/agents/*.md` (OpenCode's
 * folders; a file of the second replaces one of the same name in the first). The file
 * name is the agent's name unless its frontmatter has `name:`. A file that cannot be read
 * or parsed is left out, and named in `problems`.
 */

export const AGENT_FOLDERS = [".opencode/agent", ".opencode/agents"] as const;

const AGENT_NAME = /^[A-Za-z][\w-]{0,39}$/;

/** Agent files one session reads at most. */
const MAX_AGENT_FILES = 200;

export interface SessionAgents {
  agents: Agents;
  problems: string[];
}

/** The session as agents are resolved for it: its working tree (made first when it has a workspace). */
export interface AgentsOf {
  directory: string;
  workspaceId: string | null;
}

/** The agent files read of folders that never change (a base commit's, by key). */
const fixedAgentFiles = new FixedReads<RepoFiles>();

/** A tree's agent files; of a folder that never changes (`fixed`: its key), read once. Each caller gets its own lists. */
async function agentFiles(root: string, fixed: string | undefined): Promise<RepoFiles> {
  if (fixed === undefined) return readMarkdown(root, AGENT_FOLDERS, false);
  const { files, problems } = await fixedAgentFiles.get(fixed, () => readMarkdown(root, AGENT_FOLDERS, false));
  return { files: [...files], problems: [...problems] };
}

/** `reader`: the step's reader of the workspace (Workspaces.files), shared with its other readers; one of its own otherwise. */
export async function sessionAgents(s: { agents: Agents; workspaces: Pick<Services["workspaces"], "readFiles"> }, row: AgentsOf, reader?: WorkspaceFiles): Promise<SessionAgents> {
  const inFolders = (file: string) => AGENT_FOLDERS.some((folder) => file.startsWith(`${folder}/`) && !file.slice(folder.length + 1).includes("/") && file.endsWith(".md"));
  let found: Awaited<ReturnType<typeof readMarkdown>>;
  try {
    // Read without waiting for a new session's working tree (from its base commit meanwhile).
    const want = { folders: [...AGENT_FOLDERS], file: inFolders };
    const read = (root: string, fixed?: string) => agentFiles(root, fixed);
    found = reader
      ? await reader.read(want, MAX_AGENT_FILES, read)
      : row.workspaceId
        ? await s.workspaces.readFiles(row.workspaceId, want, MAX_AGENT_FILES, read)
        : await readMarkdown(row.directory, AGENT_FOLDERS, false);
  } catch (error) {
    // The workspace could not be made: the server's agents still answer (the first tool says why).
    const reason = error instanceof Error ? error.message : String(error);
    return { agents: s.agents.withProject([], [`the repository's agent files could not be read: ${reason}`]), problems: [`the repository's agent files could not be read: ${reason}`] };
  }
  const { files, problems } = found;
  const parsed: Array<{ name: string; file: AgentFileType; body: string; path: string }> = [];
  for (const file of files) {
    try {
      const { data, body } = splitFrontmatter(file.text);
      const result = AgentFile.safeParse(data);
      if (!result.success) {
        problems.push(`${file.path}: ${result.error.issues.map((i) => `${i.path.join(".") || "frontmatter"}: ${i.message}`).join("; ")}`);
        continue;
      }
      const name = result.data.name ?? file.name;
      if (!AGENT_NAME.test(name)) {
        problems.push(`${file.path}: "${name}" is not an agent name (a letter, then letters, digits, - or _; at most 40)`);
        continue;
      }
      parsed.push({ name, file: result.data, body, path: file.path });
    } catch (error) {
      if (!(error instanceof FrontmatterError)) throw error;
      problems.push(`${file.path}: ${error.message}`);
    }
  }
  return { agents: s.agents.withProject(parsed, problems), problems };
}
