import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A small project for the agent to work on, written where the first team's project lives when nothing is there yet. */
const SAMPLE_FILES: Record<string, string> = {
  "README.md": "# Sample project\n\nA small project for Parley's agent to work on.\n",
  "src/greet.ts": 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n',
  "src/math.ts": "export const add = (a: number, b: number): number => a + b;\n",
};

export function ensureSampleProject(directory: string): void {
  if (existsSync(directory)) return;
  for (const [file, text] of Object.entries(SAMPLE_FILES)) {
    const full = path.join(directory, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}
