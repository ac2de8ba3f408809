import type { ReactNode } from "react";
import type { ToolPart, ToolState } from "@/components/chat/types";
import { Spinner } from "@/components/ui/feedback";
import { FileChip } from "../file-part";
import { Icon } from "../icons";

/** What a per-tool renderer receives. */
export interface ToolBodyProps {
  part: ToolPart;
  state: ToolState;
  input: Record<string, unknown>;
  /** The title the card header shows, so a body does not repeat it. */
  title: string | undefined;
}

/** A string field of a tool's input or metadata, accepting several spellings (filePath / path). */
export function field(record: Record<string, unknown> | undefined, ...names: string[]): string | undefined {
  if (!record) return undefined;
  for (const name of names) {
    const value = record[name];
    if (typeof value === "string" && value) return value;
    if (typeof value === "number") return String(value);
  }
  return undefined;
}

export function metadataOf(state: ToolState): Record<string, unknown> | undefined {
  return state.status === "pending" ? undefined : state.metadata;
}

export function ToolSection({ label, children, aside }: { label: string; children: ReactNode; aside?: ReactNode }) {
  return (
    <section className="space-y-1.5">
      <div className="flex items-center justify-between gap-2">
        <h4 className="text-[11px] font-semibold tracking-wider text-zinc-400 uppercase">{label}</h4>
        {aside}
      </div>
      {children}
    </section>
  );
}

export function CodeBlock({ children, tone = "light", className = "" }: { children: string; tone?: "light" | "dark"; className?: string }) {
  const colors = tone === "dark" ? "bg-zinc-900 text-zinc-100" : "bg-zinc-50 text-zinc-800 ring-1 ring-zinc-200 ring-inset";
  return (
    <pre className={`max-h-80 overflow-auto rounded-lg px-3 py-2 font-mono text-[12.5px] leading-relaxed whitespace-pre-wrap break-words ${colors} ${className}`}>
      {children}
    </pre>
  );
}

export function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Input as JSON, for tools without their own renderer. */
export function InputBlock({ input }: { input: Record<string, unknown> }) {
  if (Object.keys(input).length === 0) return null;
  return (
    <ToolSection label="Input">
      <CodeBlock>{json(input)}</CodeBlock>
    </ToolSection>
  );
}

/**
 * The result area every tool shares: waiting, running (with live output when the tool
 * reports it in metadata.output), the output, or the error.
 */
export function ToolResult({ state, tone = "light", collapse = false }: { state: ToolState; tone?: "light" | "dark"; collapse?: boolean }) {
  switch (state.status) {
    case "pending":
      return <p className="text-sm text-zinc-500 italic">Waiting to run…</p>;
    case "running": {
      const live = field(state.metadata, "output");
      return (
        <div className="space-y-2">
          {state.approval ? (
            <p data-testid="tool-waiting" className="flex items-center gap-2 text-sm text-amber-800">
              <Icon name="clock" className="size-3.5" /> Waiting for approval
            </p>
          ) : (
            <p className="flex items-center gap-2 text-sm text-sky-700">
              <Spinner className="size-3.5" /> Running…
            </p>
          )}
          {live ? <CodeBlock tone={tone}>{live}</CodeBlock> : null}
        </div>
      );
    }
    case "error":
      return (
        <ToolSection label="Error">
          <pre data-testid="tool-error" className="overflow-auto rounded-lg bg-red-50 px-3 py-2 font-mono text-[12.5px] whitespace-pre-wrap break-words text-red-800 ring-1 ring-red-200 ring-inset">
            {state.error}
          </pre>
        </ToolSection>
      );
    case "completed": {
      const output = state.output;
      const note = state.time.compacted ? <span className="text-[11px] text-zinc-400">hidden from the model (compacted)</span> : undefined;
      const body = output ? <CodeBlock tone={tone}>{output}</CodeBlock> : <p className="text-sm text-zinc-400 italic">No output.</p>;
      return (
        <div className="space-y-3">
          <ToolSection label="Output" aside={note}>
            {collapse && output.split("\n").length > 12 ? (
              <details className="group">
                <summary className="cursor-pointer text-xs font-medium text-indigo-600 select-none hover:text-indigo-800">
                  Show {output.split("\n").length} lines
                </summary>
                <div className="mt-1.5">{body}</div>
              </details>
            ) : (
              body
            )}
          </ToolSection>
          {state.attachments?.length ? (
            <ToolSection label="Attachments">
              <div className="flex flex-wrap gap-2">
                {state.attachments.map((file) => (
                  <FileChip key={file.id} file={file} />
                ))}
              </div>
            </ToolSection>
          ) : null}
        </div>
      );
    }
  }
}
