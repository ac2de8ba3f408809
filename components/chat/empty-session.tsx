"use client";

import { EmptyState } from "@/components/ui/feedback";
import { STARTER_PROMPTS } from "@/lib/starter-prompts";
import { offerDraft } from "./draft";
import { useChatActions } from "./message-actions";

/**
 * What an empty session shows: in a member's chat, prompts to start with — a click puts
 * one in the composer, ready to send or to change first.
 */
export function EmptySession() {
  const actions = useChatActions();
  if (!actions) return <EmptyState title="No messages yet">This session has no conversation yet.</EmptyState>;
  const { sessionId } = actions;
  return (
    <section aria-labelledby="empty-session-title" data-testid="empty-session" className="rounded-2xl border border-dashed border-zinc-300 bg-white px-4 py-8 text-center sm:px-6">
      <h2 id="empty-session-title" className="text-sm font-semibold text-zinc-900">
        No messages yet
      </h2>
      <p className="mx-auto mt-1 max-w-prose text-sm text-zinc-600">
        Ask the agent about this project below — attach files, or type @ to mention one. Or start with one of these:
      </p>
      <ul className="mx-auto mt-4 flex max-w-2xl flex-wrap justify-center gap-2">
        {STARTER_PROMPTS.map((starter) => (
          <li key={starter.prompt} className="min-w-0">
            <button
              type="button"
              data-testid="starter-prompt"
              onClick={() => offerDraft(sessionId, starter.prompt)}
              className="flex max-w-full flex-col items-start rounded-xl border border-zinc-200 bg-zinc-50 px-3 py-2 text-left hover:border-indigo-300 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            >
              <span className="text-xs font-medium text-zinc-600">{starter.label}</span>
              <span className="max-w-full truncate font-mono text-[13px] text-zinc-900">{starter.prompt}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
