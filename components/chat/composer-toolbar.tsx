import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { type AgentChoice, AgentPicker } from "./agent-picker";
import { AttachButton } from "./attachments";
import { type ModelChoice, ModelPicker } from "./model-picker";

const MODES = {
  shell: { label: "shell", hint: "Runs in the session’s sandbox after you approve it; its output joins the conversation" },
  command: { label: "command", hint: "Runs the command with what follows its name as arguments" },
} as const;

/** What the composer's text will do, when it is not a plain prompt: `!command` is a shell command, `/name` a command. */
export function ModeHint({ mode }: { mode: "shell" | "command" | "prompt" }) {
  if (mode === "prompt") return null;
  const { label, hint } = MODES[mode];
  return (
    <span data-testid="composer-mode" data-mode={mode} className="inline-flex min-w-0 items-center gap-1.5 text-xs text-zinc-600">
      <span className="rounded-md bg-amber-100 px-1.5 py-0.5 font-mono font-semibold text-amber-900">{label}</span>
      <span className="truncate">{hint}</span>
    </span>
  );
}

/** Under the message box: attach, the agent and model pickers, what the text will do, Stop while the agent works, Send. */
export function ComposerToolbar(props: {
  onFiles: (files: File[]) => void;
  agent: AgentChoice;
  model: ModelChoice;
  mode: "shell" | "command" | "prompt";
  running: boolean;
  onStop: () => void;
  stopping: boolean;
  canSend: boolean;
  sending: boolean;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2 px-3 pb-2.5">
      <AttachButton onFiles={props.onFiles} />
      <AgentPicker choice={props.agent} />
      <ModelPicker choice={props.model} />
      <ModeHint mode={props.mode} />
      <span className="ml-auto" />
      {props.running ? (
        <Button size="sm" variant="secondary" data-testid="stop-button" onClick={props.onStop} disabled={props.stopping} className="text-red-700">
          {props.stopping ? <Spinner className="size-3.5" /> : <span className="size-2.5 rounded-[2px] bg-current" aria-hidden="true" />}
          Stop
        </Button>
      ) : null}
      <Button type="submit" size="sm" variant="primary" data-testid="send-button" disabled={!props.canSend || props.sending}>
        {props.sending ? <Spinner className="size-3.5" /> : null}
        Send
      </Button>
    </div>
  );
}
