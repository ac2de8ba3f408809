"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useCallback, useSyncExternalStore } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { ErrorLine } from "@/components/ui/feedback";
import { byProvider, describeModel, providerLabel } from "@/lib/models";
import type { AppRouter } from "@/server/trpc/router";

type ModelList = inferRouterOutputs<AppRouter>["model"]["list"];
export type ModelOption = ModelList["models"][number];
export interface ModelRef {
  providerId: string;
  modelId: string;
}

/** "provider/model" — the provider id never contains a slash, the model id may. */
export function modelKey(ref: ModelRef): string {
  return `${ref.providerId}/${ref.modelId}`;
}

export function parseModelKey(key: string): ModelRef | undefined {
  const slash = key.indexOf("/");
  if (slash <= 0 || slash === key.length - 1) return undefined;
  return { providerId: key.slice(0, slash), modelId: key.slice(slash + 1) };
}

/**
 * The model to preselect: the one picked in this session before, else the one its last
 * message used, else the session's own, else the server's default — the first of these
 * that is still offered.
 */
export function chooseModel(input: {
  models: readonly ModelRef[];
  fallback: ModelRef;
  picked?: ModelRef | undefined;
  lastUsed?: ModelRef | undefined;
  session?: ModelRef | undefined;
}): ModelRef {
  const offered = new Set(input.models.map(modelKey));
  for (const candidate of [input.picked, input.lastUsed, input.session]) {
    if (candidate && offered.has(modelKey(candidate))) return candidate;
  }
  return input.fallback;
}

// The choice per session is kept in localStorage, so it survives a reload before anything is sent.
const STORAGE_PREFIX = "parley.model.";
const CHANGE_EVENT = "parley:model-choice";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  window.addEventListener(CHANGE_EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHANGE_EVENT, onChange);
  };
}

function readPicked(sessionId: string): string | null {
  try {
    return window.localStorage.getItem(STORAGE_PREFIX + sessionId);
  } catch {
    // Storage can be disabled (privacy settings): the choice then lasts as long as the page.
    return null;
  }
}

export interface ModelChoice {
  /** undefined until the model list has loaded. */
  list: ModelList | undefined;
  error: { message: string } | null;
  selected: ModelRef | undefined;
  select: (ref: ModelRef) => void;
}

/** The models on offer and the one chosen for this session (remembered per session). */
export function useModelChoice(sessionId: string, lastUsed: ModelRef | undefined, session: ModelRef | undefined): ModelChoice {
  const trpc = useTRPC();
  const query = useQuery(trpc.model.list.queryOptions(undefined, { staleTime: 5 * 60_000 }));
  const pickedKey = useSyncExternalStore(
    subscribe,
    () => readPicked(sessionId),
    () => null,
  );
  const select = useCallback(
    (ref: ModelRef) => {
      try {
        window.localStorage.setItem(STORAGE_PREFIX + sessionId, modelKey(ref));
      } catch (error) {
        console.warn("[model-picker] could not remember the model choice", error);
      }
      window.dispatchEvent(new Event(CHANGE_EVENT));
    },
    [sessionId],
  );
  const list = query.data;
  const selected = list
    ? chooseModel({ models: list.models, fallback: list.default, picked: pickedKey ? parseModelKey(pickedKey) : undefined, lastUsed, session })
    : undefined;
  return { list, error: query.error, selected, select };
}

export function isOffline(model: ModelOption, list: ModelList): boolean {
  return model.name === list.offlineLabel;
}

/**
 * A select of the team's models, grouped by provider, each with its context window and
 * prices (or "price unknown"); the built-in offline model is labelled as such.
 */
export function ModelPicker({ choice, disabled }: { choice: ModelChoice; disabled?: boolean }) {
  const { list, selected } = choice;
  if (choice.error) return <ErrorLine inline error={choice.error} what="Models unavailable" className="text-xs text-red-600" />;
  if (!list || !selected) return <span className="text-xs text-zinc-400">Loading models…</span>;
  const current = list.models.find((m) => modelKey(m) === modelKey(selected));
  return (
    <div className="flex min-w-0 items-center gap-1.5">
      <label className="sr-only" htmlFor="composer-model">
        Model
      </label>
      <select
        id="composer-model"
        data-testid="model-picker"
        value={modelKey(selected)}
        disabled={disabled}
        onChange={(event) => {
          const ref = parseModelKey(event.target.value);
          if (ref) choice.select(ref);
        }}
        className="max-w-80 min-w-0 truncate rounded-md border-0 bg-transparent py-1 pr-7 pl-2 text-xs font-medium text-zinc-700 ring-1 ring-zinc-200 ring-inset hover:bg-zinc-50 focus:ring-2 focus:ring-indigo-500 disabled:opacity-50"
      >
        {byProvider(list.models).map((group) => (
          <optgroup key={group.providerId} label={providerLabel(group.providerId)}>
            {group.models.map((m) => (
              <option key={modelKey(m)} value={modelKey(m)} title={describeModel(m)}>
                {isOffline(m, list) ? m.name : `${m.name} (${modelKey(m)})`}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      {current && !isOffline(current, list) ? (
        <span data-testid="model-details" className="hidden truncate text-xs text-zinc-500 sm:inline">
          {describeModel(current)}
        </span>
      ) : null}
      {current && isOffline(current, list) ? (
        <Badge tone="amber" data-testid="offline-badge" className="uppercase">
          offline
        </Badge>
      ) : null}
    </div>
  );
}
