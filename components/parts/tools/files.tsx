import type { ReactNode } from "react";
import { parseReadOutput, readText } from "@/lib/read-output";
import { CodeView } from "../code-view";
import { TextDiff, UnifiedDiff } from "../diff-view";
import { type ToolBodyProps, ToolResult, ToolSection, field, metadataOf } from "./shared";

const pathOf = (input: Record<string, unknown>) => field(input, "filePath", "path", "file");

function PathLine({ path, extra, title }: { path: string | undefined; extra?: string; title: string | undefined }) {
  if (!path || (path === title && !extra)) return null;
  return (
    <p className="font-mono text-[13px] break-all text-zinc-700">
      {path}
      {extra ? <span className="text-zinc-400"> {extra}</span> : null}
    </p>
  );
}

/** read: the lines it returned as code, numbered as in the file and highlighted by the file's type. */
export function ReadToolBody({ state, input, title }: ToolBodyProps) {
  const offset = field(input, "offset");
  const limit = field(input, "limit");
  const range = offset || limit ? `(${offset ? `from line ${offset}` : ""}${offset && limit ? ", " : ""}${limit ? `${limit} lines` : ""})` : undefined;
  const path = pathOf(input);
  const read = state.status === "completed" ? parseReadOutput(state.output) : undefined;
  return (
    <div className="space-y-3">
      <PathLine path={path} extra={range} title={title} />
      {read ? (
        <ToolSection label="Content" aside={state.status === "completed" && state.time.compacted ? <span className="text-[11px] text-zinc-500">hidden from the model (compacted)</span> : undefined}>
          <CodeView code={readText(read)} path={path} firstLine={read.lines[0]?.number ?? 1} />
          {read.note ? (
            <p data-testid="read-note" className="mt-1.5 text-xs whitespace-pre-wrap text-zinc-500">
              {read.note}
            </p>
          ) : null}
        </ToolSection>
      ) : (
        <ToolResult state={state} collapse />
      )}
    </div>
  );
}

/** Edits of files that hold secrets (.env…) keep their content out of the transcript's diff, and out of share links. */
function contentHidden(input: Record<string, unknown>, metadata: Record<string, unknown> | undefined): boolean {
  return input.contentHidden === true || metadata?.diffHidden === true;
}

function HiddenContent() {
  return (
    <p data-testid="content-hidden" className="rounded-lg bg-zinc-50 px-3 py-2 text-xs text-zinc-600 ring-1 ring-zinc-200 ring-inset">
      Content not shown: this file may hold secrets (such as a .env file).
    </p>
  );
}

function Counts({ metadata }: { metadata: Record<string, unknown> | undefined }) {
  const additions = metadata?.additions;
  const deletions = metadata?.deletions;
  if (typeof additions !== "number" || typeof deletions !== "number") return null;
  return (
    <span className="font-mono text-xs">
      <span className="text-emerald-700">+{additions}</span> <span className="text-red-700">−{deletions}</span>
    </span>
  );
}

/**
 * A tool that changes one file (write, edit): its path, the diff it reported — until it
 * reports one, what it was given (`given`) —, none of it for a file that may hold secrets,
 * then its result.
 */
function FileChangeBody({ state, input, title, given }: ToolBodyProps & { given: ReactNode }) {
  const metadata = metadataOf(state);
  const diff = field(metadata, "diff");
  return (
    <div className="space-y-3">
      <PathLine path={pathOf(input)} title={title} />
      {contentHidden(input, metadata) ? (
        <HiddenContent />
      ) : diff ? (
        <ToolSection label="Diff" aside={<Counts metadata={metadata} />}>
          <UnifiedDiff diff={diff} />
        </ToolSection>
      ) : (
        given
      )}
      <ToolResult state={state} />
    </div>
  );
}

export function WriteToolBody(props: ToolBodyProps) {
  const content = field(props.input, "content");
  const given =
    content !== undefined ? (
      <ToolSection label="Content">
        <CodeView code={content} path={pathOf(props.input)} />
      </ToolSection>
    ) : null;
  return <FileChangeBody {...props} given={given} />;
}

export function EditToolBody(props: ToolBodyProps) {
  const before = field(props.input, "oldString", "old_string", "old");
  const after = field(props.input, "newString", "new_string", "new");
  const given =
    before !== undefined || after !== undefined ? (
      <ToolSection label="Change">
        <TextDiff name={pathOf(props.input) ?? "file"} before={before ?? ""} after={after ?? ""} />
      </ToolSection>
    ) : null;
  return <FileChangeBody {...props} given={given} />;
}

/**
 * patch / apply_patch (tools that take a whole patch, as OpenCode's do): the diff they
 * report, else the patch they were given, one heading per file.
 */
export function PatchToolBody({ state, input }: ToolBodyProps) {
  const metadata = metadataOf(state);
  const diff = field(metadata, "diff") ?? field(input, "patchText", "patch", "diff", "input");
  return (
    <div className="space-y-3">
      {contentHidden(input, metadata) ? (
        <HiddenContent />
      ) : diff ? (
        <ToolSection label="Diff" aside={<Counts metadata={metadata} />}>
          <UnifiedDiff diff={diff} headers />
        </ToolSection>
      ) : null}
      <ToolResult state={state} />
    </div>
  );
}

export const fileSummary = (input: Record<string, unknown>) => pathOf(input);
