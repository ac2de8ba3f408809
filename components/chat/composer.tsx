"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { SessionInfo } from "@/components/session/types";
import { useTRPC } from "@/components/trpc/client";
import { insertMention, mentionedPaths } from "@/lib/mentions";
import { useAgentChoice } from "./agent-picker";
import { AttachmentChips, useAttachments } from "./attachments";
import { CommandMenu, useCommandCompletion } from "./command-menu";
import { useComposerKeys } from "./composer-keys";
import { ComposerNotices } from "./composer-notices";
import { ComposerToolbar } from "./composer-toolbar";
import { takesOffer, useDraftOffers } from "./draft";
import { MentionMenu, useMentionCompletion } from "./mention-menu";
import { MessageBox } from "./message-box";
import { type ModelRef, modelKey, useModelChoice } from "./model-picker";
import { isRunning } from "./session-status";
import { composerMode } from "./slash";
import type { Status, WithParts } from "./types";
import { type Draft, useComposerSend } from "./use-composer-send";
import { useComposerText } from "./use-composer-text";
import { useFileDrop } from "./use-file-drop";
import { useTypingSignal } from "@/components/presence/typing";

export { isSendKey } from "./composer-keys";
export { requestErrorMessage } from "./composer-notices";

function lastUser(messages: readonly WithParts[]): { model?: ModelRef; agent?: string } {
  const last = messages.findLast((m) => m.info.role === "user")?.info;
  return last?.role === "user" ? { model: last.model, agent: last.agent } : {};
}

/**
 * Where the user talks to the agent: the message box, attached files (picked, pasted or
 * dropped), `@` mentions of project files and the `/` menu of commands, both completed
 * from the keyboard, `!command` run in the sandbox, the agent and model pickers, Send and —
 * while the agent works — Stop. A message sent while the agent works is queued by the
 * server. A message that is refused keeps everything: its text, files and mentions.
 */
export function Composer({ session, status, messages }: { session: SessionInfo; status: Status; messages: readonly WithParts[] }) {
  const trpc = useTRPC();
  const { box, text, caret, setText, setCaret, edit } = useComposerText();
  useTypingSignal(session.id, text);
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const attachments = useAttachments();
  const drop = useFileDrop(attachments);
  const last = lastUser(messages);
  const model = useModelChoice(session.id, last.model, session.model);
  const agent = useAgentChoice(session.id, last.agent, session.agent);
  const abort = useMutation(trpc.session.abort.mutationOptions());
  const running = isRunning(status);
  const empty = text.trim() === "" && attachments.items.length === 0;
  const selected = model.selected;
  const seesImages = selected ? (model.list?.models.find((m) => modelKey(m) === modelKey(selected))?.images ?? true) : true;

  const mentions = useMentionCompletion({
    sessionId: session.id,
    text,
    caret,
    onChoose: (mention, file) => {
      const next = insertMention(text, mention, caret, file);
      setChosen((current) => (current.includes(file) ? current : [...current, file]));
      edit(next.text, next.caret);
    },
  });
  const commands = useCommandCompletion({ sessionId: session.id, text, caret, onComplete: (next) => edit(next), onRun: (name) => submit(`/${name}`) });
  const sending = useComposerSend({
    session,
    agent: agent.selected,
    model: model.selected,
    names: commands.names,
    // Only what was sent is cleared: anything typed or attached meanwhile stays.
    done: (draft: Draft) => {
      setText((current) => (current === draft.text ? "" : current));
      attachments.clear(draft.files.map((file) => file.id));
      setChosen((current) => current.filter((path) => !draft.mentions.includes(path)));
    },
    replace: (restored) => edit(restored),
  });
  useDraftOffers(session.id, (offered, options) => {
    if (takesOffer(text, options)) edit(offered);
  });

  const submit = (sent: string) => {
    if (sending.pending || (sent.trim() === "" && attachments.items.length === 0)) return;
    if (sent !== text) edit(sent);
    sending.send({ text: sent, files: attachments.items, mentions: mentionedPaths(sent, chosen) });
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(text);
  };
  const keys = useComposerKeys({
    lists: [commands, mentions],
    cycles: text === "" && attachments.items.length === 0 && agent.agents.length > 1,
    cycle: agent.cycle,
    send: () => submit(text),
  });
  const list = commands.open && commands.commands.length > 0 ? commands : mentions.files.length > 0 ? mentions : undefined;

  return (
    <div className="sticky bottom-0 z-10 -mx-2 space-y-2 bg-gradient-to-t from-zinc-50 from-70% to-transparent px-2 pt-4 pb-4" data-testid="composer">
      <form
        onSubmit={onSubmit}
        {...drop.form}
        aria-label="Send a message"
        data-dragging={drop.dragging || undefined}
        className={`relative rounded-2xl border bg-white shadow-sm focus-within:border-indigo-300 focus-within:ring-2 focus-within:ring-indigo-100 ${drop.dragging ? "border-indigo-400 ring-2 ring-indigo-200" : "border-zinc-200"}`}
      >
        <CommandMenu completion={commands} />
        <MentionMenu completion={mentions} />
        {drop.dragging ? (
          <div aria-hidden="true" className="pointer-events-none absolute inset-0 z-10 grid place-items-center rounded-2xl bg-indigo-50/90 text-sm font-medium text-indigo-800">
            Drop files to attach them
          </div>
        ) : null}
        <AttachmentChips items={attachments.items} onRemove={attachments.remove} modelSeesImages={seesImages} />
        <MessageBox
          ref={box}
          text={text}
          running={running}
          list={list ? { listId: list.listId, activeId: list.optionId(list.active) } : undefined}
          onText={(value, at) => {
            setText(value);
            setCaret(at);
            keys.reset();
          }}
          onCaret={setCaret}
          onKeyDown={keys.onKeyDown}
          onPaste={drop.onPaste}
          onBlur={keys.reset}
        />
        <ComposerToolbar
          onFiles={(files) => void attachments.add(files)}
          agent={agent}
          model={model}
          mode={composerMode(text, commands.names)}
          running={running}
          onStop={() => abort.mutate({ sessionId: session.id })}
          stopping={abort.isPending}
          canSend={!empty}
          sending={sending.pending}
        />
      </form>
      <ComposerNotices attachError={attachments.error} failure={sending.failure} stopError={abort.error} />
    </div>
  );
}
