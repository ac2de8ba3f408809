import { InputBlock, type ToolBodyProps, ToolResult } from "./shared";

/** Any tool without its own renderer: its input as JSON, then its result. */
export function GenericToolBody({ state, input }: ToolBodyProps) {
  return (
    <div className="space-y-3">
      <InputBlock input={input} />
      <ToolResult state={state} />
    </div>
  );
}
