import type { ClipboardEvent, KeyboardEvent, RefObject } from "react";
import { MESSAGE_BOX_ID } from "@/components/ui/keyboard";

/** The list the box's completion shows (the `/` menu or the `@` files), for its ARIA attributes. */
export interface ShownList {
  listId: string;
  activeId: string;
}

const HINT_ID = "message-box-hint";

/**
 * The message box itself: a textarea whose open completion list is announced through
 * aria-controls / aria-activedescendant (the focus stays in the box), with a description of
 * what `/`, `!`, `@` and Tab do.
 */
export function MessageBox({
  ref,
  ...props
}: {
  ref: RefObject<HTMLTextAreaElement | null>;
  text: string;
  running: boolean;
  list: ShownList | undefined;
  onText: (text: string, caret: number) => void;
  onCaret: (caret: number) => void;
  onKeyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => void;
  onPaste: (event: ClipboardEvent<HTMLTextAreaElement>) => void;
  onBlur: () => void;
}) {
  return (
    <>
      <label htmlFor={MESSAGE_BOX_ID} className="sr-only">
        Message
      </label>
      <p id={HINT_ID} className="sr-only">
        Start with / for a command, with ! to run a shell command in the sandbox; @ mentions a file. While the box is empty, Tab and Shift+Tab switch the agent: press
        Escape, then Tab, to leave the box.
      </p>
      <textarea
        ref={ref}
        id={MESSAGE_BOX_ID}
        data-testid="composer-input"
        value={props.text}
        onChange={(event) => props.onText(event.target.value, event.target.selectionStart)}
        onSelect={(event) => props.onCaret(event.currentTarget.selectionStart)}
        onKeyDown={props.onKeyDown}
        onPaste={props.onPaste}
        onBlur={props.onBlur}
        aria-keyshortcuts="/"
        aria-describedby={HINT_ID}
        rows={2}
        aria-autocomplete="list"
        aria-controls={props.list?.listId}
        aria-activedescendant={props.list?.activeId}
        placeholder={
          props.running
            ? "The agent is working — a message sent now is queued and answered next"
            : "Ask the agent… (Enter to send, Shift+Enter for a new line; / for commands, ! for a shell command, @ mentions a file; start with @explore or @general to hand a job to a subagent)"
        }
        className="block max-h-72 min-h-16 w-full resize-none rounded-t-2xl border-0 bg-transparent px-4 pt-3 pb-1 text-[15px] text-zinc-900 [field-sizing:content] placeholder:text-zinc-400 focus:ring-0 focus:outline-none"
      />
    </>
  );
}
