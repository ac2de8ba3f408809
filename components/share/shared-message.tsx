import type { AssistantMessage, Part, PartOf, UserMessage, WithParts } from "@/components/chat/types";
import { AssistantMessageFrame, UserMessageFrame } from "@/components/chat/message-frame";
import { TurnDiffFiles, TurnDiffHeading } from "@/components/chat/turn-diff-summary";
import { Icon } from "@/components/parts/icons";
import { FilePartView } from "@/components/parts/file-part";
import { CompactionPartView, RetryPartView } from "@/components/parts/notice-parts";
import { PatchPartView } from "@/components/parts/patch-part";
import { RetryCard } from "@/components/parts/retry-card";
import { ToolCard, toolTitle } from "@/components/parts/tool-card";
import { SnapshotPartView, StepFinishPartView, StepStartPartView, transcriptParts } from "@/components/parts/step-parts";
import { formatDuration } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import { groupRetries, retryOutcome } from "@/lib/retry-parts";
import { SharedMarkdown } from "./shared-markdown";
import { sharedToolRenderer } from "./shared-tools";

/**
 * One message of a share page, rendered on the server: the same parts as the chat's
 * (components/parts), without a member's actions. Text and reasoning are markdown rendered
 * here; tool cards are native <details> (no JavaScript to open them); the part renderers
 * that are plain markup are the chat's own.
 */
export function SharedMessage({ message }: { message: WithParts }) {
  const { info, parts } = message;
  return info.role === "user" ? <SharedUserMessage info={info} parts={parts} /> : <SharedAssistantMessage info={info} parts={parts} />;
}

function SharedUserMessage({ info, parts }: { info: UserMessage; parts: Part[] }) {
  if (parts.length > 0 && parts.every((part) => part.type === "compaction")) {
    return (
      <article data-testid="message" data-role="user" data-message-id={info.id}>
        <SharedParts parts={parts} />
      </article>
    );
  }
  const diffs = info.summary?.diffs ?? [];
  return (
    <UserMessageFrame
      info={info}
      viewerId={undefined}
      delegated={<span data-testid="message-delegated">written by the parent session&apos;s agent</span>}
      time={<RelativeTime time={info.time.created} />}
      body={parts.length ? <SharedParts parts={parts} /> : <p className="text-sm text-zinc-400 italic">Empty message</p>}
    >
      {diffs.length > 0 ? (
        <details className="mt-2 overflow-hidden rounded-xl border border-zinc-200 bg-white" data-testid="turn-diff">
          <summary className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm hover:bg-zinc-50">
            <TurnDiffHeading files={diffs} />
          </summary>
          <div className="border-t border-zinc-100 p-3">
            <TurnDiffFiles files={diffs} />
          </div>
        </details>
      ) : null}
    </UserMessageFrame>
  );
}

function SharedAssistantMessage({ info, parts }: { info: AssistantMessage; parts: Part[] }) {
  return (
    <AssistantMessageFrame
      info={info}
      aside={
        info.time.completed !== undefined ? (
          <span className="ml-auto tabular-nums" title="Duration">
            {formatDuration(info.time.completed - info.time.created)}
          </span>
        ) : null
      }
      parts={parts.length ? <SharedParts parts={parts} reply={info} /> : undefined}
    />
  );
}

function SharedParts({ parts, reply }: { parts: Part[]; reply?: AssistantMessage }) {
  return (
    <div className="space-y-3">
      {groupRetries(transcriptParts(parts)).map((item) =>
        item.kind === "retries" ? (
          // As the chat's RetryPartsView marks it: the attributes of the first retry part.
          <div key={item.key} data-part-type="retry" data-part-id={item.retries[0]?.id} data-retries={item.retries.length} className="min-w-0">
            <RetryCard retries={item.retries} outcome={retryOutcome(reply)} />
          </div>
        ) : (
          <SharedPart key={item.part.id} part={item.part} />
        ),
      )}
    </div>
  );
}

/** The root of every part, as the chat's PartView marks it (data-part-type, data-tool-status). */
function SharedPart({ part }: { part: Part }) {
  return (
    <div data-part-type={part.type} data-part-id={part.id} data-tool-status={part.type === "tool" ? part.state.status : undefined} className="min-w-0">
      <SharedPartBody part={part} />
    </div>
  );
}

function SharedPartBody({ part }: { part: Part }) {
  switch (part.type) {
    case "text":
      if (!part.text.trim()) return null;
      return <SharedMarkdown text={part.text} className={part.ignored ? "opacity-50" : undefined} />;
    case "reasoning":
      return (
        <details className="group rounded-lg border border-zinc-200 bg-zinc-50/60 open:bg-white">
          <summary className="flex cursor-pointer list-none items-center gap-2 px-3 py-2 text-sm text-zinc-600 select-none hover:text-zinc-900 [&::-webkit-details-marker]:hidden">
            <Icon name="chevron" className="size-4 text-zinc-400 transition-transform group-open:rotate-90" />
            <Icon name="bulb" className="size-4 text-amber-400" />
            <span className="font-medium">{part.time.end !== undefined ? `Thought for ${formatDuration(part.time.end - part.time.start)}` : "Thinking…"}</span>
          </summary>
          <div className="border-t border-zinc-100 px-3 py-2.5">
            {part.text.trim() ? <SharedMarkdown text={part.text} className="text-sm text-zinc-600" /> : <p className="text-sm text-zinc-400 italic">No reasoning text.</p>}
          </div>
        </details>
      );
    case "tool":
      return <SharedToolCard part={part} />;
    case "subtask":
      return (
        <div className="rounded-xl border border-violet-200 bg-violet-50/50 px-3.5 py-2.5">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <Icon name="bot" className="size-4 text-violet-500" />
            <span className="font-medium text-violet-900">Subtask for @{part.agent}</span>
          </div>
          <p className="mt-1 text-sm text-zinc-700">{part.description}</p>
        </div>
      );
    case "file":
      return <FilePartView part={part} />;
    case "step-start":
      return <StepStartPartView part={part} />;
    case "step-finish":
      return <StepFinishPartView part={part} />;
    case "snapshot":
      return <SnapshotPartView part={part} />;
    case "patch":
      return <PatchPartView part={part} />;
    case "agent":
      // As the chat's AgentPartView shows it (that module's markdown is client code).
      return (
        <span className="inline-flex items-center gap-1 rounded-full bg-violet-50 px-2.5 py-0.5 text-xs font-medium text-violet-700 ring-1 ring-violet-600/20 ring-inset">
          <Icon name="bot" className="size-3.5" />@{part.name}
        </span>
      );
    case "retry":
      return <RetryPartView part={part} />;
    case "compaction":
      return <CompactionPartView part={part} />;
  }
}

/**
 * A tool call in the chat's card (components/parts/tool-card.tsx), left to the browser's
 * <details>, body from the tool's renderer for share pages (shared-tools.ts); a task's
 * child session is in the page's child list.
 */
function SharedToolCard({ part }: { part: PartOf<"tool"> }) {
  const { state } = part;
  const renderer = sharedToolRenderer(part.tool, state);
  const title = toolTitle(state, renderer);
  const Body = renderer.Body;
  return (
    <ToolCard part={part} renderer={renderer} title={title}>
      <Body part={part} state={state} input={state.input} title={title} />
    </ToolCard>
  );
}
