"use client";

import { useCallback, useId, useRef, useState } from "react";
import { Icon } from "@/components/parts/icons";
import { Button } from "@/components/ui/button";
import { type Attachment, MAX_ATTACHMENTS, formatBytes, readAttachment } from "@/lib/attachments";

/**
 * Files attached to the message being written: added by the picker, by pasting or by
 * dropping them on the composer, shown as removable chips until the message is sent.
 */
export interface Attachments {
  items: Attachment[];
  /** Why the last files could not all be attached (cleared by the next addition or removal). */
  error: string | undefined;
  add(files: readonly File[]): Promise<void>;
  remove(id: string): void;
  /** Drop the ones that were sent (those added meanwhile stay). */
  clear(ids: readonly string[]): void;
}

export function useAttachments(): Attachments {
  const [state, setState] = useState<{ items: Attachment[]; error: string | undefined }>({ items: [], error: undefined });

  const add = useCallback(async (files: readonly File[]) => {
    if (files.length === 0) return;
    const results = await Promise.all(files.map(readAttachment));
    setState((current) => {
      const items = [...current.items];
      const reasons: string[] = [];
      for (const result of results) {
        if (!result.ok) reasons.push(result.reason);
        else if (items.length >= MAX_ATTACHMENTS) reasons.push(`${result.attachment.name} was not attached: a message carries at most ${MAX_ATTACHMENTS} files`);
        else items.push(result.attachment);
      }
      return { items, error: reasons.length > 0 ? reasons.join(". ") : undefined };
    });
  }, []);
  const remove = useCallback((id: string) => {
    setState((current) => ({ items: current.items.filter((item) => item.id !== id), error: undefined }));
  }, []);
  const clear = useCallback((ids: readonly string[]) => {
    setState((current) => ({ ...current, items: current.items.filter((item) => !ids.includes(item.id)) }));
  }, []);
  return { items: state.items, error: state.error, add, remove, clear };
}

/** The attached files, each with a remove button; an image the chosen model cannot see says so. */
export function AttachmentChips({ items, onRemove, modelSeesImages }: { items: readonly Attachment[]; onRemove: (id: string) => void; modelSeesImages: boolean }) {
  if (items.length === 0) return null;
  return (
    <ul aria-label="Attached files" className="flex flex-wrap gap-2 px-3 pt-3">
      {items.map((item) => (
        <li
          key={item.id}
          data-testid="attachment-chip"
          data-kind={item.kind}
          className="flex max-w-full min-w-0 items-center gap-2 rounded-xl border border-zinc-200 bg-zinc-50 py-1 pr-1 pl-1.5"
        >
          {item.kind === "image" ? (
            // eslint-disable-next-line @next/next/no-img-element -- a local data URL, not optimizable
            <img src={item.url} alt="" className="size-8 rounded-md object-cover ring-1 ring-zinc-200" />
          ) : (
            <span aria-hidden="true" className="grid size-8 place-items-center rounded-md bg-indigo-50 text-indigo-600">
              <Icon name="file" className="size-4" />
            </span>
          )}
          <span className="min-w-0">
            <span className="block max-w-48 truncate text-sm font-medium text-zinc-900">{item.name}</span>
            <span className="block text-xs text-zinc-600">
              {formatBytes(item.size)}
              {item.kind === "image" && !modelSeesImages ? " · this model cannot see images" : ""}
            </span>
          </span>
          <button
            type="button"
            aria-label={`Remove ${item.name}`}
            onClick={() => onRemove(item.id)}
            className="grid size-7 shrink-0 place-items-center rounded-md text-zinc-600 hover:bg-zinc-200 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            <Icon name="x" className="size-3.5" />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** "Attach files": opens the system's file picker. */
export function AttachButton({ onFiles, disabled }: { onFiles: (files: File[]) => void; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  return (
    <>
      <input
        ref={input}
        id={id}
        type="file"
        multiple
        hidden
        data-testid="attach-input"
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          // The same file may be picked again after removing it.
          event.target.value = "";
          onFiles(files);
        }}
      />
      <Button size="sm" variant="ghost" aria-label="Attach files" title="Attach files (or paste or drop them here)" data-testid="attach-button" disabled={disabled} onClick={() => input.current?.click()} className="px-2">
        <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" className="size-4">
          <path d="M15.5 9.5 10 15a3.5 3.5 0 0 1-5-5l6-6a2.3 2.3 0 0 1 3.3 3.3l-6 6a1.2 1.2 0 0 1-1.7-1.7L12 6.2" />
        </svg>
      </Button>
    </>
  );
}
