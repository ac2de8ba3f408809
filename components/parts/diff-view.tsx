"use client";

import { Fragment, type ReactNode, useMemo } from "react";
import { type DiffFile, type DiffRow, type ParsedDiff, type Segment, diffTexts, parseDiff } from "@/lib/diff-view";
import { useCardOpen } from "./card-open";

/**
 * Diffs as a reader expects them: old and new line numbers, removed and added lines in
 * colour, the words that changed inside a changed line marked, a carriage return shown as
 * ␍ and a missing final newline said in words. Parsing is lib/diff-view.ts (jsdiff).
 * Inside a collapsed card the diff is plain text until the card opens.
 */

const PLAIN = "max-h-96 overflow-auto rounded-lg bg-white px-3 py-2 font-mono text-[12.5px] leading-relaxed whitespace-pre-wrap break-words text-zinc-700 ring-1 ring-zinc-200 ring-inset";

/** Unified diff text: a tool's stored diff (one file) or a turn's diff (`headers`: one heading per file). */
export function UnifiedDiff({ diff, headers = false }: { diff: string; headers?: boolean }) {
  const open = useCardOpen();
  const parsed = useMemo(() => (open ? parseDiff(diff) : undefined), [open, diff]);
  if (!open || !parsed) {
    return (
      <pre data-testid={open ? "diff-text" : undefined} className={PLAIN}>
        {diff}
      </pre>
    );
  }
  return <DiffFiles diff={parsed} headers={headers} numbers />;
}

/** The change between two snippets (an edit's old and new string, before the tool reports its diff). */
export function TextDiff({ name, before, after }: { name: string; before: string; after: string }) {
  const open = useCardOpen();
  const parsed = useMemo(() => (open ? diffTexts(name, before, after) : undefined), [open, name, before, after]);
  if (!parsed) return <pre className={PLAIN}>{after}</pre>;
  // Snippet line numbers would not be the file's: leave them out.
  return <DiffFiles diff={parsed} headers={false} numbers={false} />;
}

function DiffFiles({ diff, headers, numbers }: { diff: ParsedDiff; headers: boolean; numbers: boolean }) {
  return (
    <div data-testid="diff-view" className="max-h-[32rem] overflow-auto rounded-lg bg-white ring-1 ring-zinc-200 ring-inset">
      {diff.files.map((file, i) => (
        <FileDiffView key={`${file.name}:${i}`} file={file} header={headers} numbers={numbers} />
      ))}
    </div>
  );
}

const CHANGE_LABEL: Record<DiffFile["change"], string | undefined> = { modified: undefined, added: "added", deleted: "deleted", renamed: "renamed" };

function FileDiffView({ file, header, numbers }: { file: DiffFile; header: boolean; numbers: boolean }) {
  const label = CHANGE_LABEL[file.change];
  const columns = numbers ? 4 : 2;
  return (
    <section data-testid="diff-file" data-file={file.name} className="border-zinc-200 not-first:border-t">
      {header ? (
        <header className="sticky top-0 z-10 flex flex-wrap items-center gap-x-2 gap-y-0.5 border-b border-zinc-200 bg-zinc-50 px-3 py-1.5 font-mono text-xs">
          <span className="font-semibold break-all text-zinc-800">
            {file.from ? `${file.from} → ` : ""}
            {file.name}
          </span>
          {label ? <span className="rounded bg-zinc-200/70 px-1.5 font-sans text-[11px] text-zinc-700">{label}</span> : null}
          <span className="ml-auto">
            <span className="text-emerald-700">+{file.additions}</span> <span className="text-red-700">−{file.deletions}</span>
          </span>
        </header>
      ) : null}
      {file.lineEndings ? (
        <p data-testid="diff-line-endings" className="border-b border-amber-200 bg-amber-50 px-3 py-1 text-xs text-amber-900">
          Line endings changed: {file.lineEndings} (a carriage return shows as ␍)
        </p>
      ) : null}
      {file.binary ? <p className="px-3 py-2 text-xs text-zinc-600">Binary file changed.</p> : null}
      {file.hunks.length > 0 ? (
        <table className="w-full border-collapse font-mono text-[12.5px] leading-relaxed">
          {file.hunks.map((hunk, h) => (
            <tbody key={h}>
              <tr>
                <td colSpan={columns} data-testid="diff-hunk" className="bg-sky-50 px-3 py-0.5 text-xs text-sky-800">
                  {hunk.header}
                </td>
              </tr>
              {hunk.rows.map((row, r) => (
                <Row key={r} row={row} numbers={numbers} />
              ))}
            </tbody>
          ))}
        </table>
      ) : null}
    </section>
  );
}

const ROW_STYLE: Record<DiffRow["kind"], string> = {
  context: "text-zinc-700",
  del: "bg-red-50 text-red-950",
  add: "bg-emerald-50 text-emerald-950",
};
const SIGN: Record<DiffRow["kind"], string> = { context: " ", del: "-", add: "+" };

function Row({ row, numbers }: { row: DiffRow; numbers: boolean }) {
  const number = "w-px px-2 text-right align-top whitespace-nowrap text-zinc-600 tabular-nums select-none";
  return (
    <tr data-testid="diff-row" data-kind={row.kind} className={ROW_STYLE[row.kind]}>
      {numbers ? (
        <>
          <td data-testid="diff-old-line" className={number}>
            {row.oldLine ?? ""}
          </td>
          <td data-testid="diff-new-line" className={number}>
            {row.newLine ?? ""}
          </td>
        </>
      ) : null}
      <td aria-hidden="true" className="w-px pl-2 align-top select-none">
        {SIGN[row.kind]}
      </td>
      <td data-testid="diff-line-text" className="pr-3 pl-1 whitespace-pre-wrap [overflow-wrap:anywhere]">
        {row.segments ? <Segments segments={row.segments} kind={row.kind} /> : <Visible text={row.text} />}
        {row.noNewline ? (
          <span data-testid="diff-no-newline" className="ml-2 rounded bg-zinc-200/70 px-1 font-sans text-[11px] text-zinc-700 select-none">
            No newline at end of file
          </span>
        ) : null}
      </td>
    </tr>
  );
}

function Segments({ segments, kind }: { segments: Segment[]; kind: DiffRow["kind"] }) {
  return segments.map((segment, i) =>
    !segment.changed ? (
      <Visible key={i} text={segment.text} />
    ) : kind === "del" ? (
      <del key={i} data-testid="diff-word" className="rounded-sm bg-red-200 no-underline">
        <Visible text={segment.text} />
      </del>
    ) : (
      <ins key={i} data-testid="diff-word" className="rounded-sm bg-emerald-200 no-underline">
        <Visible text={segment.text} />
      </ins>
    ),
  );
}

/** Text with each carriage return shown as ␍, so a CRLF line does not look like its LF twin. */
function Visible({ text }: { text: string }): ReactNode {
  if (!text.includes("\r")) return text;
  return text.split("\r").map((piece, i) => (
    <Fragment key={i}>
      {i > 0 ? (
        <span data-testid="diff-cr" title="Carriage return (CRLF line ending)" className="font-semibold">
          ␍
        </span>
      ) : null}
      {piece}
    </Fragment>
  ));
}
