import Link from "next/link";
import { createContext, memo, use, useState } from "react";
import { PartView, RetryPartsView } from "@/components/parts/registry";
import { useSessionHref } from "@/components/parts/session-link";
import { transcriptParts } from "@/components/parts/step-parts";
import { Badge } from "@/components/ui/badge";
import { groupRetries, retryOutcome } from "@/lib/retry-parts";
import { formatCost, formatDateTime, formatDuration, formatTokens, totalTokens } from "@/components/ui/format";
import { AssistantMessageFrame, UserMessageFrame, isMine } from "./message-frame";
import { AssistantMessageActions, EditMessage, PartRevertButton, UserMessageActions } from "./message-actions";
import { messageMarkdown } from "./revert";
import { InstructionsLine } from "./instructions-line";
import { TurnDiff } from "./turn-diff";
import { QueuedBadge } from "./queued";
import { RetryActions } from "./retry-actions";
import type { AssistantMessage, Part, UserMessage, WithParts } from "./types";

/**
 * The signed-in member looking at the conversation: their own messages read "You",
 * everyone else's the author's name. A share page provides none: every author by name.
 */
export const ViewerIdContext = createContext<string | undefined>(undefined);

/**
 * One message. Memoized on the message object: the store keeps that object while the
 * message is unchanged, so finished messages do not re-render while another one streams.
 */
export const MessageView = memo(function MessageView({ message }: { message: WithParts }) {
  return message.info.role === "user" ? <UserMessageView info={message.info} parts={message.parts} /> : <AssistantMessageView info={message.info} parts={message.parts} />;
});

/** A part re-renders only when the store replaced it (a streaming part, a tool moving on). */
const MemoPart = memo(function MemoPart({ part }: { part: Part }) {
  if (part.type === "tool" && part.state.status === "completed" && part.state.time.compacted !== undefined) {
    return (
      <div data-testid="pruned-tool" className="space-y-1.5">
        <p className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
          <Badge tone="amber" data-testid="cleared-badge">
            Cleared for the model
          </Badge>
          <span>The model now sees “[Old tool result content cleared]”; the output below is kept for you.</span>
        </p>
        <PartView part={part} />
      </div>
    );
  }
  return <PartView part={part} />;
});

function Parts({ parts, reply }: { parts: Part[]; reply?: AssistantMessage }) {
  return (
    <div className="space-y-3">
      {groupRetries(transcriptParts(parts)).map((item) => {
        if (item.kind === "retries") return <RetryPartsView key={item.key} retries={item.retries} outcome={retryOutcome(reply)} actions={<RetryActions />} />;
        const { part } = item;
        return reply ? (
          <div key={part.id} className="group/part">
            <MemoPart part={part} />
            <PartRevertButton info={reply} part={part} />
          </div>
        ) : (
          <MemoPart key={part.id} part={part} />
        );
      })}
    </div>
  );
}

function UserMessageView({ info, parts }: { info: UserMessage; parts: Part[] }) {
  const [editing, setEditing] = useState(false);
  const viewerId = use(ViewerIdContext);
  const mine = isMine(info, viewerId);
  // A compaction request is a marker in the conversation, not something the user wrote.
  if (parts.length > 0 && parts.every((part) => part.type === "compaction")) {
    return (
      <article data-testid="message" data-role="user" data-message-id={info.id}>
        <Parts parts={parts} />
      </article>
    );
  }
  return (
    <UserMessageFrame
      info={info}
      viewerId={viewerId}
      delegated={info.delegatedBy ? <DelegatedBy sessionId={info.delegatedBy.sessionId} /> : null}
      time={<time dateTime={new Date(info.time.created).toISOString()}>{formatDateTime(info.time.created)}</time>}
      badges={<QueuedBadge messageId={info.id} mine={mine} />}
      body={
        editing ? (
          <EditMessage info={info} initial={messageMarkdown({ info, parts })} onDone={() => setEditing(false)} />
        ) : parts.length ? (
          <Parts parts={parts} />
        ) : (
          <p className="text-sm text-zinc-400 italic">Empty message</p>
        )
      }
    >
      {editing ? null : <UserMessageActions info={info} parts={parts} onEdit={() => setEditing(true)} />}
      <TurnDiff info={info} />
    </UserMessageFrame>
  );
}

/** Where a message the parent session's agent wrote (a task's prompt) came from. */
function DelegatedBy({ sessionId }: { sessionId: string }) {
  const sessionHref = useSessionHref();
  return (
    <Link href={sessionHref(sessionId)} data-testid="message-delegated" className="text-indigo-600 hover:text-indigo-800">
      written by the parent session&apos;s agent
    </Link>
  );
}

function AssistantMessageView({ info, parts }: { info: AssistantMessage; parts: Part[] }) {
  const tokens = totalTokens(info.tokens);
  return (
    <AssistantMessageFrame
      info={info}
      aside={
        <span className="ml-auto flex items-center gap-3 tabular-nums">
          {info.time.completed !== undefined ? <span title="Duration">{formatDuration(info.time.completed - info.time.created)}</span> : null}
          <span
            data-testid="message-tokens"
            data-estimated={info.usageEstimated ? "true" : undefined}
            title={`${info.tokens.input} in, ${info.tokens.output} out, ${info.tokens.reasoning} reasoning, cache ${info.tokens.cache.read}/${info.tokens.cache.write}${info.usageEstimated ? " — estimated: the reply was stopped before the provider reported its usage" : ""}`}
          >
            {info.usageEstimated ? "≈ " : ""}
            {formatTokens(tokens)}
          </span>
          <span data-testid="message-cost" className="font-mono text-zinc-700">
            {formatCost(info.cost)}
          </span>
        </span>
      }
      parts={parts.length ? <Parts parts={parts} reply={info} /> : undefined}
    >
      <InstructionsLine info={info} parts={parts} />
      <AssistantMessageActions info={info} parts={parts} />
    </AssistantMessageFrame>
  );
}
