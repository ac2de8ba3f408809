import type { ReactNode } from "react";
import { Icon } from "@/components/parts/icons";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import { authorLabel, initials } from "./author";
import { MessageErrorNotice } from "./message-error";
import type { AssistantMessage, UserMessage } from "./types";

/**
 * The frame of a message that the chat (message-view.tsx) and share pages (rendered on the
 * server, components/share/shared-message.tsx) both draw: avatar, header, where the parts
 * go. Plain markup, no hooks.
 */

/** A teammate's avatar: their initials. */
function AuthorAvatar({ name }: { name: string }) {
  return (
    <span className="mt-0.5 grid size-8 shrink-0 place-items-center rounded-full bg-teal-100 text-xs font-semibold text-teal-800" aria-hidden="true">
      {initials(name) || <Icon name="user" className="size-4" />}
    </span>
  );
}

function Avatar({ role }: { role: "user" | "assistant" }) {
  return role === "user" ? (
    <span className="mt-0.5 grid size-8 shrink-0 place-items-center rounded-full bg-indigo-100 text-indigo-600" aria-hidden="true">
      <Icon name="user" className="size-4" />
    </span>
  ) : (
    <span className="mt-0.5 grid size-8 shrink-0 place-items-center rounded-full bg-gradient-to-br from-indigo-500 to-violet-600 text-white shadow-sm" aria-hidden="true">
      <Icon name="sparkles" className="size-4" />
    </span>
  );
}

/** A user message's avatar: the agent's for a delegated prompt, the plain one for the viewer's own (or an unknown author's), else the author's initials. */
function UserAvatar({ info, mine }: { info: UserMessage; mine: boolean }) {
  if (info.delegatedBy) return <Avatar role="assistant" />;
  return mine || !info.author ? <Avatar role="user" /> : <AuthorAvatar name={info.author.name} />;
}

/** Whether the viewer (none on a share page) wrote this message. */
export function isMine(info: UserMessage, viewerId: string | undefined): boolean {
  return info.author !== undefined && info.author.id === viewerId;
}

/**
 * A user message: avatar, header (who wrote it — the parent session's agent for a task's
 * prompt, `delegated` saying where it came from —, `time`, the agent it went to, `badges`),
 * `body` in the bubble, `children` below it.
 */
export function UserMessageFrame({
  info,
  viewerId,
  delegated,
  time,
  badges,
  body,
  children,
}: {
  info: UserMessage;
  viewerId: string | undefined;
  delegated: ReactNode;
  time: ReactNode;
  badges?: ReactNode;
  body: ReactNode;
  children?: ReactNode;
}) {
  return (
    <article data-testid="message" data-role="user" data-message-id={info.id} data-author-id={info.author?.id} className="flex gap-3">
      <UserAvatar info={info} mine={isMine(info, viewerId)} />
      <div className="min-w-0 flex-1">
        <header className="mb-1.5 flex flex-wrap items-baseline gap-x-2 text-xs text-zinc-500">
          <span data-testid="message-author" className="text-sm font-semibold text-zinc-900">
            {info.delegatedBy ? `@${info.delegatedBy.agent} agent` : authorLabel(info.author, viewerId)}
          </span>
          {info.delegatedBy ? delegated : null}
          {time}
          <span data-testid="message-agent" className="font-mono">
            @{info.agent}
          </span>
          {badges}
        </header>
        <div className="rounded-2xl rounded-tl-md border border-indigo-100 bg-indigo-50/60 px-4 py-3">{body}</div>
        {children}
      </div>
    </article>
  );
}

/**
 * An assistant message: avatar, header (model, agent, whether it is a summary or still
 * working; `aside` on the right), its `parts` (undefined when it has none) and its error,
 * `children` below.
 */
export function AssistantMessageFrame({ info, aside, parts, children }: { info: AssistantMessage; aside: ReactNode; parts: ReactNode; children?: ReactNode }) {
  const running = info.time.completed === undefined && !info.error;
  return (
    <article data-testid="message" data-role="assistant" data-message-id={info.id} data-state={running ? "running" : "done"} className="flex gap-3">
      <Avatar role="assistant" />
      <div className="min-w-0 flex-1">
        <header className="mb-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-500">
          <span className="text-sm font-semibold text-zinc-900">Assistant</span>
          <span data-testid="message-model" className="font-mono">
            {info.providerId}/{info.modelId}
          </span>
          <span data-testid="message-agent" className="font-mono">
            @{info.agent}
          </span>
          {info.summary ? <Badge tone="violet">Summary</Badge> : null}
          {running ? (
            <span className="inline-flex items-center gap-1 text-sky-600">
              <Spinner className="size-3" /> working
            </span>
          ) : null}
          {aside}
        </header>
        <div className="space-y-3">
          {parts ?? (running || info.error ? null : <p className="text-sm text-zinc-400 italic">No content.</p>)}
          {info.error ? <MessageErrorNotice error={info.error} /> : null}
        </div>
        {children}
      </div>
    </article>
  );
}
