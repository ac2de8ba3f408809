import { CodeBlock, type ToolBodyProps, ToolResult, ToolSection, field } from "./shared";

export function BashToolBody({ state, input, title }: ToolBodyProps) {
  const command = field(input, "command", "cmd");
  const description = field(input, "description");
  const workdir = field(input, "workdir", "cwd");
  return (
    <div className="space-y-3">
      {description && description !== title ? <p className="text-sm text-zinc-600">{description}</p> : null}
      {command ? (
        <ToolSection label="Command" aside={workdir ? <span className="font-mono text-[11px] text-zinc-400">{workdir}</span> : undefined}>
          <CodeBlock tone="dark">{`$ ${command}`}</CodeBlock>
        </ToolSection>
      ) : null}
      <ToolResult state={state} tone="dark" />
    </div>
  );
}

export const bashSummary = (input: Record<string, unknown>) => field(input, "description", "command");
