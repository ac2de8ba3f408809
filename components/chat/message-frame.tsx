import type { ReactNode } from "react";
import { Icon } from "@/components/parts/icons";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import { authorLabel, initials } from "./author";
import type { AssistantMessage, UserMessage } from "./types";

/**
 * The frame of a message that the chat (message-view.tsx) and share pages (rendered on the
 * server, components/share/shared-message.tsx) both draw: avatars and headers. Plain
 * markup, no hooks.
 */

/** A teammate's avatar: their initials. */
function AuthorAvatar({ name }: { name: string }) {
  return (
    <span className="mt-0.5 grid size-8 shrink-0 place-items-center rounded-full bg-teal-100 text-xs font-semibold text-teal-800" aria-hidden="true">
      {initials(name) || <Icon name="user" className="size-4" />}
    </span>
  );
}

export function Avatar({ role }: { role: "user" | "assistant" }) {
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
export function UserAvatar({ info, mine }: { info: UserMessage; mine: boolean }) {
  if (info.delegatedBy) return <Avatar role="assistant" />;
  return mine || !info.author ? <Avatar role="user" /> : <AuthorAvatar name={info.author.name} />;
}

/** An assistant message's header: model, agent, whether it is a summary or still working; `children` on the right. */
export function AssistantHeader({ info, running, children }: { info: AssistantMessage; running: boolean; children: ReactNode }) {
  return (
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
      {children}
    </header>
  );
}

/**
 * A user message's header: who wrote it (the parent session's agent for a task's prompt:
 * `delegated` says where it came from), `time`, the agent it went to; `children` after.
 */
export function UserHeader({ info, viewerId, delegated, time, children }: { info: UserMessage; viewerId: string | undefined; delegated: ReactNode; time: ReactNode; children?: ReactNode }) {
  return (
    <header className="mb-1.5 flex flex-wrap items-baseline gap-x-2 text-xs text-zinc-500">
      <span data-testid="message-author" className="text-sm font-semibold text-zinc-900">
        {info.delegatedBy ? `@${info.delegatedBy.agent} agent` : authorLabel(info.author, viewerId)}
      </span>
      {info.delegatedBy ? delegated : null}
      {time}
      <span data-testid="message-agent" className="font-mono">
        @{info.agent}
      </span>
      {children}
    </header>
  );
}
