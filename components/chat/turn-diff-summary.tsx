import { Icon } from "@/components/parts/icons";
import type { UserMessage } from "./types";

/**
 * What a turn changed, as the chat's turn diff (turn-diff.tsx, which loads the diff on
 * request) and a share page's (rendered on the server) both show it. Plain markup.
 */
export type TurnFiles = NonNullable<NonNullable<UserMessage["summary"]>["diffs"]>;

/** The line that opens a turn's diff: how many files, lines added and removed. */
export function TurnDiffHeading({ files }: { files: TurnFiles }) {
  const additions = files.reduce((sum, d) => sum + d.additions, 0);
  const deletions = files.reduce((sum, d) => sum + d.deletions, 0);
  return (
    <>
      <Icon name="diff" className="size-4 text-emerald-600" />
      <span className="font-medium text-zinc-800">
        This turn changed {files.length} {files.length === 1 ? "file" : "files"}
      </span>
      <span className="font-mono text-xs">
        <span className="text-emerald-600">+{additions}</span> <span className="text-red-600">−{deletions}</span>
      </span>
    </>
  );
}

/** The turn's files, each with its lines added and removed. */
export function TurnDiffFiles({ files }: { files: TurnFiles }) {
  return (
    <ul className="font-mono text-xs text-zinc-700" data-testid="turn-diff-files">
      {files.map((file) => (
        <li key={file.file} className="flex gap-2">
          <span className="truncate">{file.file}</span>
          <span className="text-emerald-600">+{file.additions}</span>
          <span className="text-red-600">−{file.deletions}</span>
        </li>
      ))}
    </ul>
  );
}
