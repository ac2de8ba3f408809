/**
 * The read tool's output (server/tool/read.ts), taken apart for the code view:
 *
 *     <file>
 *     00001| first line
 *     00002| second line
 *
 *     (End of file - total 2 lines)
 *     </file>
 *
 * Line numbers are the file's own (they start at the read's offset). What follows the
 * numbered lines (the footer, or a truncation notice when the output was cut) is the note.
 * Pure, shared by the browser and its tests.
 */

export interface ReadLine {
  number: number;
  text: string;
}

export interface ReadOutput {
  lines: ReadLine[];
  /** The footer or notice after the lines, when there is one. */
  note: string | undefined;
}

const OPEN = "<file>";
const CLOSE = "</file>";
const NUMBERED = /^(\d+)\| ?/;

/** The numbered lines and the note of a read output; undefined when the text is not one. */
export function parseReadOutput(output: string): ReadOutput | undefined {
  const all = output.split("\n");
  if (all[0] !== OPEN) return undefined;
  const lines: ReadLine[] = [];
  let i = 1;
  for (; i < all.length; i++) {
    const line = all[i] ?? "";
    const match = NUMBERED.exec(line);
    if (!match) break;
    const number = Number(match[1]);
    const previous = lines[lines.length - 1];
    // Numbers count up one by one: anything else is not the read tool's numbering.
    if (previous && number !== previous.number + 1) return undefined;
    lines.push({ number, text: line.slice(match[0].length) });
  }
  const rest = all.slice(i);
  const close = rest.lastIndexOf(CLOSE);
  const note = (close === -1 ? rest : rest.slice(0, close)).join("\n").trim();
  return { lines, note: note || undefined };
}

/** The file's text as read (the lines joined), e.g. to copy it. */
export function readText(output: ReadOutput): string {
  return output.lines.map((line) => line.text).join("\n");
}
