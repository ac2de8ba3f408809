import { Session } from "../../server/session";
import { type Seeder, completedRead } from "./seed";

const tokens = { input: 1800, output: 420, reasoning: 60, cache: { read: 0, write: 0 } };

/** A long identifier and a long line of code: what pushes a narrow page sideways if anything does. */
const WIDE = "src/components/very/deeply/nested/folder/structure/with/a-really-long-file-name-that-never-wraps.ts";

const ANSWER = `## Done

I read \`${WIDE}\` and \`src/greet.ts\`:

- **greet(name)** returns a greeting
- it has no test yet

\`\`\`ts
export function greet(name: string): string { return \`Hello, \${name}! This line is long enough to need a horizontal scroll of its own.\`; }
\`\`\`

| file | lines |
| --- | --- |
| src/greet.ts | 3 |
`;

/**
 * A finished conversation as the chat shows it: a question, reasoning, a completed and a
 * failed tool card, a markdown answer with code and a table; shared when `share` is set.
 * Returns the session and, when shared, the share page's path.
 */
export async function seedSampleChat(seed: Seeder, title: string, options: { share?: boolean; turns?: number } = {}) {
  const session = await seed.session({ title });
  const start = Date.now() - 120_000;
  for (let turn = 0; turn < (options.turns ?? 1); turn++) {
    const ask = await seed.userMessage(session.id, [{ type: "text", text: `Explain ${WIDE}, please (${turn + 1}).` }]);
    await seed.assistantMessage(
      session.id,
      ask.id,
      [
        { type: "step-start" },
        { type: "reasoning", text: "I should read the file first.", time: { start, end: start + 800 } },
        completedRead(`call_read_${turn}`, "src/greet.ts", "1\texport function greet(name: string): string {\n2\t  return `Hello, ${name}!`;\n3\t}", { start: start + 900, end: start + 950 }),
        {
          type: "tool",
          callId: `call_bash_${turn}`,
          tool: "bash",
          state: {
            status: "error",
            input: { command: `ls ${WIDE}`, description: "Look for the file" },
            error: `ls: cannot access '${WIDE}': No such file or directory`,
            time: { start: start + 1000, end: start + 1200 },
          },
        },
        { type: "text", text: ANSWER, time: { start: start + 1300, end: start + 2000 } },
        { type: "step-finish", reason: "stop", cost: 0.0042, tokens },
      ],
      { cost: 0.0042, tokens },
    );
  }
  await seed.flush();
  if (!options.share) return { session, sharePath: undefined };
  const shared = await Session.share(seed.ctx, session.id);
  await seed.flush();
  if (!shared.share) throw new Error("the session was not shared");
  return { session, sharePath: new URL(shared.share.url, "http://localhost").pathname };
}
