/**
 * Prompts an empty session offers to start with. Each is a request the built-in offline
 * model carries out with its tools (server/provider/offline/parse.ts; checked by
 * starter-prompts.test.ts) and plain enough for any other model.
 */
export interface StarterPrompt {
  /** What it shows off. */
  label: string;
  /** The text put in the composer. */
  prompt: string;
}

export const STARTER_PROMPTS: readonly StarterPrompt[] = [
  { label: "Look around the project", prompt: "List the files and read README.md" },
  { label: "Search the code", prompt: "Search for greet in src" },
  { label: "Run a command (asks first)", prompt: "Run ls -la" },
  { label: "Edit a file, step by step", prompt: "Read src/greet.ts then write notes.txt: Parley was here" },
  { label: "Hand a job to a subagent", prompt: "Use a subagent to read README.md" },
];
