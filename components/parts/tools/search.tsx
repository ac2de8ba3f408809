import { type ToolBodyProps, ToolResult, field } from "./shared";

/** glob, grep and list: what was searched where, then the matches. */
export function SearchToolBody({ state, input }: ToolBodyProps) {
  const pattern = field(input, "pattern", "query");
  const path = field(input, "path", "directory");
  const include = field(input, "include", "glob");
  return (
    <div className="space-y-3">
      {pattern || path ? (
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-zinc-600">
          {pattern ? <code className="rounded bg-amber-50 px-1.5 py-0.5 font-mono text-[13px] text-amber-900 ring-1 ring-amber-200">{pattern}</code> : null}
          {path ? (
            <span>
              in <span className="font-mono text-[13px] text-zinc-800">{path}</span>
            </span>
          ) : null}
          {include ? (
            <span>
              files <span className="font-mono text-[13px] text-zinc-800">{include}</span>
            </span>
          ) : null}
        </p>
      ) : null}
      <ToolResult state={state} collapse />
    </div>
  );
}

export const searchSummary = (input: Record<string, unknown>) => field(input, "pattern", "path");
