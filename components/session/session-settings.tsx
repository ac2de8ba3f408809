"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner, errorMessage } from "@/components/ui/feedback";
import type { SessionInfo } from "./types";

type Action = "allow" | "ask" | "deny";
type Rule = NonNullable<SessionInfo["permission"]>[number];

interface Row extends Rule {
  key: number;
}

/** Limits of the server's schema (server/permission/schema.ts). */
const MAX_RULES = 500;
const MAX_PERMISSION = 100;
const MAX_PATTERN = 1000;

/** Permissions the tools ask for; any other name (or a wildcard) may be typed. */
const KNOWN_PERMISSIONS = ["bash", "edit", "read", "list", "glob", "grep", "external_directory", "doom_loop", "task", "todowrite", "todoread", "*"];
const ACTIONS: Action[] = ["allow", "ask", "deny"];

/** Row keys for React (rules have no id of their own). */
let lastKey = 0;
function keyed(rule: Rule): Row {
  lastKey += 1;
  return { ...rule, key: lastKey };
}

interface RowErrors {
  permission?: string;
  pattern?: string;
}

function validate(rows: Row[]): { rows: Map<number, RowErrors>; form?: string } {
  const errors = new Map<number, RowErrors>();
  for (const row of rows) {
    const e: RowErrors = {};
    if (!row.permission.trim()) e.permission = "Name the permission (e.g. bash, edit, or * for all).";
    else if (row.permission.trim().length > MAX_PERMISSION) e.permission = `At most ${MAX_PERMISSION} characters.`;
    if (!row.pattern.trim()) e.pattern = "Give a pattern (* matches everything).";
    else if (row.pattern.trim().length > MAX_PATTERN) e.pattern = `At most ${MAX_PATTERN} characters.`;
    if (e.permission || e.pattern) errors.set(row.key, e);
  }
  return { rows: errors, form: rows.length > MAX_RULES ? `At most ${MAX_RULES} rules.` : undefined };
}

/** The server's validation issues, when the error carries them (server/trpc/init.ts). */
function issuesOf(error: unknown): string[] {
  if (typeof error !== "object" || error === null || !("data" in error)) return [];
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null || !("issues" in data) || !Array.isArray(data.issues)) return [];
  return data.issues.flatMap((issue: unknown) => {
    if (typeof issue !== "object" || issue === null || !("message" in issue) || typeof issue.message !== "string") return [];
    const path = "path" in issue && Array.isArray(issue.path) ? issue.path.join(".") : "";
    return [path ? `${path}: ${issue.message}` : issue.message];
  });
}

/** "Settings" in the session header: opens the dialog with the session's own permission rules. */
export function SessionSettingsButton({ session }: { session: SessionInfo }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="sm" onClick={() => setOpen(true)} aria-haspopup="dialog">
        Settings
      </Button>
      {open ? <SessionSettings session={session} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

/**
 * The session's own permission rules (SPEC §10): evaluated after the built-in defaults,
 * the team's configuration, the agent's rules and the team's "always" approvals, so they
 * have the last word; within them the last matching rule wins. A tool denied for every
 * pattern is not offered to the model at all.
 */
export function SessionSettings({ session, onClose }: { session: SessionInfo; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [rows, setRows] = useState<Row[]>(() => (session.permission ?? []).map(keyed));
  const [submitted, setSubmitted] = useState(false);
  const save = useMutation(
    trpc.session.update.mutationOptions({
      onSuccess: (info) => {
        queryClient.setQueryData(trpc.session.get.queryKey({ sessionId: info.id }), info);
        onClose();
      },
    }),
  );

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  const errors = validate(rows);
  const invalid = errors.rows.size > 0 || errors.form !== undefined;
  const update = (key: number, patch: Partial<Rule>) => setRows((list) => list.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  const move = (index: number, by: -1 | 1) =>
    setRows((list) => {
      const target = index + by;
      const a = list[index];
      const b = list[target];
      if (!a || !b) return list;
      const copy = [...list];
      copy[index] = b;
      copy[target] = a;
      return copy;
    });
  const submit = () => {
    setSubmitted(true);
    if (invalid) return;
    const rules = rows.map(({ permission, pattern, action }) => ({ permission: permission.trim(), pattern: pattern.trim(), action }));
    save.mutate({ sessionId: session.id, patch: { permission: rules.length ? rules : null } });
  };
  const close = () => {
    if (!save.isPending) onClose();
  };
  const serverIssues = save.error ? issuesOf(save.error) : [];

  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      data-testid="session-settings"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
      onClick={(event) => {
        if (event.target === dialog.current) close();
      }}
      className="m-auto w-[min(44rem,calc(100vw-2rem))] rounded-2xl bg-white p-0 shadow-2xl ring-1 ring-zinc-900/10 backdrop:bg-zinc-900/40 backdrop:backdrop-blur-sm"
    >
      <form
        noValidate
        className="p-6"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <h2 id={titleId} className="text-base font-semibold text-zinc-900">
          Session settings
        </h2>
        <section className="mt-4 space-y-3" aria-labelledby={`${titleId}-rules`}>
          <div>
            <h3 id={`${titleId}-rules`} className="text-sm font-semibold text-zinc-800">
              Permission rules
            </h3>
            <p className="mt-1 text-sm text-zinc-500">
              Checked after the team’s defaults and “always” approvals, so these have the last word; the last matching rule wins.
              Patterns use <code className="font-mono">*</code> (any run of characters) and <code className="font-mono">?</code> (one
              character). A tool denied for <code className="font-mono">*</code> is hidden from the model.
            </p>
          </div>

          {rows.length === 0 ? (
            <p data-testid="rules-empty" className="rounded-lg border border-dashed border-zinc-300 px-4 py-5 text-center text-sm text-zinc-500">
              No rules of its own: this session follows the team’s rules.
            </p>
          ) : (
            <ol className="space-y-2" aria-label="Rules">
              {rows.map((row, index) => {
                const rowErrors = submitted ? errors.rows.get(row.key) : undefined;
                return (
                  <li key={row.key} data-testid="permission-rule" className="rounded-lg bg-zinc-50 p-2 ring-1 ring-zinc-200 ring-inset">
                    <div className="flex flex-wrap items-start gap-2">
                      <div className="min-w-32 flex-1">
                        <input
                          aria-label={`Permission of rule ${index + 1}`}
                          list={`${titleId}-permissions`}
                          value={row.permission}
                          onChange={(event) => update(row.key, { permission: event.target.value })}
                          aria-invalid={rowErrors?.permission ? true : undefined}
                          placeholder="bash"
                          className={inputClass(!!rowErrors?.permission)}
                        />
                        {rowErrors?.permission ? <p className="mt-1 text-xs text-red-600">{rowErrors.permission}</p> : null}
                      </div>
                      <div className="min-w-40 flex-[2]">
                        <input
                          aria-label={`Pattern of rule ${index + 1}`}
                          value={row.pattern}
                          onChange={(event) => update(row.key, { pattern: event.target.value })}
                          aria-invalid={rowErrors?.pattern ? true : undefined}
                          placeholder="*"
                          className={`${inputClass(!!rowErrors?.pattern)} font-mono`}
                        />
                        {rowErrors?.pattern ? <p className="mt-1 text-xs text-red-600">{rowErrors.pattern}</p> : null}
                      </div>
                      <select
                        aria-label={`Action of rule ${index + 1}`}
                        value={row.action}
                        onChange={(event) => update(row.key, { action: event.target.value as Action })}
                        className="h-8 rounded-lg border-0 bg-white px-2 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600 focus:outline-none"
                      >
                        {ACTIONS.map((action) => (
                          <option key={action} value={action}>
                            {action}
                          </option>
                        ))}
                      </select>
                      <div className="flex gap-1">
                        <Button size="sm" variant="ghost" aria-label={`Move rule ${index + 1} up`} disabled={index === 0} onClick={() => move(index, -1)}>
                          ↑
                        </Button>
                        <Button size="sm" variant="ghost" aria-label={`Move rule ${index + 1} down`} disabled={index === rows.length - 1} onClick={() => move(index, 1)}>
                          ↓
                        </Button>
                        <Button
                          size="sm"
                          variant="ghost"
                          className="text-red-600 hover:bg-red-50 hover:text-red-700"
                          aria-label={`Remove rule ${index + 1}`}
                          onClick={() => setRows((list) => list.filter((r) => r.key !== row.key))}
                        >
                          Remove
                        </Button>
                      </div>
                    </div>
                  </li>
                );
              })}
            </ol>
          )}
          <datalist id={`${titleId}-permissions`}>
            {KNOWN_PERMISSIONS.map((permission) => (
              <option key={permission} value={permission} />
            ))}
          </datalist>
          <Button size="sm" disabled={rows.length >= MAX_RULES} onClick={() => setRows((list) => [...list, keyed({ permission: "", pattern: "*", action: "ask" })])}>
            Add rule
          </Button>
        </section>

        {submitted && invalid ? (
          <p role="alert" className="mt-4 text-sm text-red-600">
            {errors.form ?? "Fix the highlighted rules before saving."}
          </p>
        ) : null}
        {save.error ? (
          <div role="alert" className="mt-4 text-sm text-red-600">
            <p>Could not save: {errorMessage(save.error)}</p>
            {serverIssues.length ? (
              <ul className="mt-1 list-disc pl-5">
                {serverIssues.map((issue) => (
                  <li key={issue}>{issue}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}

        <div className="mt-6 flex justify-end gap-2">
          <Button onClick={close} disabled={save.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" disabled={save.isPending}>
            {save.isPending ? <Spinner /> : null}
            Save rules
          </Button>
        </div>
      </form>
    </dialog>
  );
}

function inputClass(invalid: boolean): string {
  return [
    "h-8 w-full rounded-lg border-0 bg-white px-2.5 text-sm text-zinc-900 shadow-sm ring-inset placeholder:text-zinc-400 focus:ring-2 focus:outline-none",
    invalid ? "ring-1 ring-red-400 focus:ring-red-500" : "ring-1 ring-zinc-300 focus:ring-indigo-600",
  ].join(" ");
}
