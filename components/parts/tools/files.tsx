import { CodeBlock, type ToolBodyProps, ToolResult, ToolSection, field, metadataOf } from "./shared";

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

export function ReadToolBody({ state, input, title }: ToolBodyProps) {
  const offset = field(input, "offset");
  const limit = field(input, "limit");
  const range = offset || limit ? `(${offset ? `from line ${offset}` : ""}${offset && limit ? ", " : ""}${limit ? `${limit} lines` : ""})` : undefined;
  return (
    <div className="space-y-3">
      <PathLine path={pathOf(input)} extra={range} title={title} />
      <ToolResult state={state} collapse />
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

export function WriteToolBody({ state, input, title }: ToolBodyProps) {
  const content = field(input, "content");
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
      ) : content !== undefined ? (
        <ToolSection label="Content">
          <CodeBlock>{content}</CodeBlock>
        </ToolSection>
      ) : null}
      <ToolResult state={state} />
    </div>
  );
}

type DiffLine = { kind: " " | "-" | "+"; text: string };

/** old → new: lines both share at the start and end are context, the rest removed then added. */
function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [
    ...a.slice(0, head).map((text) => ({ kind: " " as const, text })),
    ...a.slice(head, a.length - tail).map((text) => ({ kind: "-" as const, text })),
    ...b.slice(head, b.length - tail).map((text) => ({ kind: "+" as const, text })),
    ...a.slice(a.length - tail).map((text) => ({ kind: " " as const, text })),
  ];
}

const LINE_STYLE: Record<DiffLine["kind"], string> = {
  " ": "text-zinc-600",
  "-": "bg-red-50 text-red-800",
  "+": "bg-emerald-50 text-emerald-800",
};

/** A unified diff (server/tool/diff.ts) with added, removed and hunk lines colored. */
export function UnifiedDiff({ diff }: { diff: string }) {
  return (
    <pre className="max-h-96 overflow-auto rounded-lg bg-white py-1 font-mono text-[12.5px] leading-relaxed ring-1 ring-zinc-200 ring-inset">
      {diff.split("\n").map((line, i) => {
        const style =
          line.startsWith("+++") || line.startsWith("---")
            ? "font-semibold text-zinc-500"
            : line.startsWith("+")
              ? LINE_STYLE["+"]
              : line.startsWith("-")
                ? LINE_STYLE["-"]
                : line.startsWith("@@")
                  ? "bg-sky-50 text-sky-700"
                  : LINE_STYLE[" "];
        return (
          <div key={i} className={`px-3 whitespace-pre-wrap ${style}`}>
            {line || " "}
          </div>
        );
      })}
    </pre>
  );
}

function Counts({ metadata }: { metadata: Record<string, unknown> | undefined }) {
  const additions = metadata?.additions;
  const deletions = metadata?.deletions;
  if (typeof additions !== "number" || typeof deletions !== "number") return null;
  return (
    <span className="font-mono text-xs">
      <span className="text-emerald-600">+{additions}</span> <span className="text-red-600">−{deletions}</span>
    </span>
  );
}

function DiffLines({ before, after }: { before: string; after: string }) {
  return (
    <pre className="max-h-80 overflow-auto rounded-lg bg-white py-1 font-mono text-[12.5px] leading-relaxed ring-1 ring-zinc-200 ring-inset">
      {diffLines(before, after).map((line, i) => (
        <div key={i} className={`px-3 whitespace-pre-wrap ${LINE_STYLE[line.kind]}`}>
          <span className="mr-2 opacity-60 select-none">{line.kind}</span>
          {line.text}
        </div>
      ))}
    </pre>
  );
}

export function EditToolBody({ state, input, title }: ToolBodyProps) {
  const before = field(input, "oldString", "old_string", "old");
  const after = field(input, "newString", "new_string", "new");
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
      ) : before !== undefined || after !== undefined ? (
        <ToolSection label="Change">
          <DiffLines before={before ?? ""} after={after ?? ""} />
        </ToolSection>
      ) : null}
      <ToolResult state={state} />
    </div>
  );
}

export const fileSummary = (input: Record<string, unknown>) => pathOf(input);
