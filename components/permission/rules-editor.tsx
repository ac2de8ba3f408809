"use client";

import { useId } from "react";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/components/ui/feedback";
import type { Action, Rule } from "@/server/permission/schema";

/**
 * The one editor of permission rules in the app (a session's own rules, the team's and a
 * project's policy): ordered rows of permission / pattern / action, checked against the
 * server's limits before saving. The list is controlled: the caller keeps the rows.
 */

export type { Action, Rule };

export interface RuleRow extends Rule {
  key: number;
}

/** Limits of the server's schema (server/permission/schema.ts). */
export const MAX_RULES = 500;
const MAX_PERMISSION = 100;
const MAX_PATTERN = 1000;

/** Permissions the tools ask for; any other name (or a wildcard) may be typed. */
const KNOWN_PERMISSIONS = ["bash", "edit", "read", "list", "glob", "grep", "external_directory", "doom_loop", "task", "todowrite", "todoread", "*"];
const ACTIONS: Action[] = ["allow", "ask", "deny"];
const ACTION_TONES: Record<Action, Tone> = { allow: "green", ask: "amber", deny: "red" };

/** Row keys for React (rules have no id of their own). */
let lastKey = 0;
function keyed(rule: Rule): RuleRow {
  lastKey += 1;
  return { ...rule, key: lastKey };
}

export function toRows(rules: readonly Rule[] | null | undefined): RuleRow[] {
  return (rules ?? []).map(keyed);
}

/** The rules as the server takes them: trimmed, without the row keys. */
export function rulesOf(rows: readonly RuleRow[]): Rule[] {
  return rows.map(({ permission, pattern, action }) => ({ permission: permission.trim(), pattern: pattern.trim(), action }));
}

export function sameRules(a: readonly Rule[], b: readonly Rule[]): boolean {
  return a.length === b.length && a.every((rule, i) => rule.permission === b[i]?.permission && rule.pattern === b[i]?.pattern && rule.action === b[i]?.action);
}

interface RowErrors {
  permission?: string;
  pattern?: string;
}

export interface RulesValidation {
  rows: Map<number, RowErrors>;
  form?: string;
  invalid: boolean;
}

export function validateRules(rows: readonly RuleRow[]): RulesValidation {
  const errors = new Map<number, RowErrors>();
  for (const row of rows) {
    const e: RowErrors = {};
    if (!row.permission.trim()) e.permission = "Name the permission (e.g. bash, edit, or * for all).";
    else if (row.permission.trim().length > MAX_PERMISSION) e.permission = `At most ${MAX_PERMISSION} characters.`;
    if (!row.pattern.trim()) e.pattern = "Give a pattern (* matches everything).";
    else if (row.pattern.trim().length > MAX_PATTERN) e.pattern = `At most ${MAX_PATTERN} characters.`;
    if (e.permission || e.pattern) errors.set(row.key, e);
  }
  const form = rows.length > MAX_RULES ? `At most ${MAX_RULES} rules.` : undefined;
  return { rows: errors, form, invalid: errors.size > 0 || form !== undefined };
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

/** What stops a save: the rows' own problems (once the user tried to save), then the server's answer. */
export function RulesErrors({ validation, submitted, error, testId }: { validation: RulesValidation; submitted: boolean; error: unknown; testId?: string }) {
  const issues = error ? issuesOf(error) : [];
  return (
    <>
      {submitted && validation.invalid ? (
        <p role="alert" className="mt-4 text-sm text-red-600">
          {validation.form ?? "Fix the highlighted rules before saving."}
        </p>
      ) : null}
      {error ? (
        <div role="alert" data-testid={testId} className="mt-4 text-sm text-red-600">
          <p>Could not save: {errorMessage(error)}</p>
          {issues.length ? (
            <ul className="mt-1 list-disc pl-5">
              {issues.map((issue) => (
                <li key={issue}>{issue}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

/**
 * The rows, each with its permission (with suggestions), pattern and action, and buttons to
 * move and remove it; "Add rule" below. `readOnly` shows the same rules as text.
 */
export function RulesEditor({
  rows,
  onChange,
  validation,
  showErrors,
  emptyText,
  readOnly = false,
}: {
  rows: RuleRow[];
  onChange: (rows: RuleRow[]) => void;
  validation: RulesValidation;
  /** Mark the rows' problems (after a first attempt to save). */
  showErrors: boolean;
  emptyText: string;
  readOnly?: boolean;
}) {
  const id = useId();
  const update = (key: number, patch: Partial<Rule>) => onChange(rows.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  const move = (index: number, by: -1 | 1) => {
    const a = rows[index];
    const b = rows[index + by];
    if (!a || !b) return;
    const copy = [...rows];
    copy[index] = b;
    copy[index + by] = a;
    onChange(copy);
  };

  if (readOnly) return <ReadOnlyRules rows={rows} emptyText={emptyText} />;
  return (
    <div className="space-y-3">
      {rows.length === 0 ? (
        <Empty text={emptyText} />
      ) : (
        <ol className="space-y-2" aria-label="Rules">
          {rows.map((row, index) => (
            <RuleEditor
              key={row.key}
              row={row}
              index={index}
              last={index === rows.length - 1}
              errors={showErrors ? validation.rows.get(row.key) : undefined}
              listId={`${id}-permissions`}
              update={(patch) => update(row.key, patch)}
              move={(by) => move(index, by)}
              remove={() => onChange(rows.filter((r) => r.key !== row.key))}
            />
          ))}
        </ol>
      )}
      <datalist id={`${id}-permissions`}>
        {KNOWN_PERMISSIONS.map((permission) => (
          <option key={permission} value={permission} />
        ))}
      </datalist>
      <Button size="sm" disabled={rows.length >= MAX_RULES} onClick={() => onChange([...rows, keyed({ permission: "", pattern: "*", action: "ask" })])}>
        Add rule
      </Button>
    </div>
  );
}

/** The rules as text, in order (members, and policies they may not change). */
function ReadOnlyRules({ rows, emptyText }: { rows: RuleRow[]; emptyText: string }) {
  if (rows.length === 0) return <Empty text={emptyText} />;
  return (
    <ol className="space-y-1.5" aria-label="Rules">
      {rows.map((row, index) => (
        <li key={row.key} data-testid="permission-rule" className="flex flex-wrap items-center gap-3 rounded-lg bg-zinc-50 px-3 py-2 text-sm ring-1 ring-zinc-200 ring-inset">
          <span className="w-6 text-xs text-zinc-400 tabular-nums">{index + 1}.</span>
          <span className="min-w-24 font-medium text-zinc-900">{row.permission}</span>
          <code className="min-w-0 flex-1 font-mono text-[12.5px] break-all text-zinc-700">{row.pattern}</code>
          <Badge tone={ACTION_TONES[row.action]}>{row.action}</Badge>
        </li>
      ))}
    </ol>
  );
}

const isAction = (value: string): value is Action => ACTIONS.some((action) => action === value);

interface RuleEditorProps {
  row: RuleRow;
  index: number;
  last: boolean;
  errors: { permission?: string; pattern?: string } | undefined;
  listId: string;
  update: (patch: Partial<Rule>) => void;
  move: (by: -1 | 1) => void;
  remove: () => void;
}

/** One rule: its permission (with suggestions), pattern and action, and buttons to move and remove it. */
function RuleEditor({ row, index, last, errors, listId, update, move, remove }: RuleEditorProps) {
  const n = index + 1;
  return (
    <li data-testid="permission-rule" className="rounded-lg bg-zinc-50 p-2 ring-1 ring-zinc-200 ring-inset">
      <div className="flex flex-wrap items-start gap-2">
        <div className="min-w-32 flex-1">
          <input
            aria-label={`Permission of rule ${n}`}
            list={listId}
            value={row.permission}
            onChange={(event) => update({ permission: event.target.value })}
            aria-invalid={errors?.permission ? true : undefined}
            placeholder="bash"
            className={inputClass(!!errors?.permission)}
          />
          {errors?.permission ? <p className="mt-1 text-xs text-red-600">{errors.permission}</p> : null}
        </div>
        <div className="min-w-40 flex-[2]">
          <input
            aria-label={`Pattern of rule ${n}`}
            value={row.pattern}
            onChange={(event) => update({ pattern: event.target.value })}
            aria-invalid={errors?.pattern ? true : undefined}
            placeholder="*"
            className={`${inputClass(!!errors?.pattern)} font-mono`}
          />
          {errors?.pattern ? <p className="mt-1 text-xs text-red-600">{errors.pattern}</p> : null}
        </div>
        <select
          aria-label={`Action of rule ${n}`}
          value={row.action}
          onChange={(event) => {
            if (isAction(event.target.value)) update({ action: event.target.value });
          }}
          className="h-8 rounded-lg border-0 bg-white px-2 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600 focus:outline-none"
        >
          {ACTIONS.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </select>
        <div className="flex gap-1">
          <Button size="sm" variant="ghost" aria-label={`Move rule ${n} up`} disabled={index === 0} onClick={() => move(-1)}>
            ↑
          </Button>
          <Button size="sm" variant="ghost" aria-label={`Move rule ${n} down`} disabled={last} onClick={() => move(1)}>
            ↓
          </Button>
          <Button size="sm" variant="ghost" className="text-red-600 hover:bg-red-50 hover:text-red-700" aria-label={`Remove rule ${n}`} onClick={remove}>
            Remove
          </Button>
        </div>
      </div>
    </li>
  );
}

function Empty({ text }: { text: string }) {
  return (
    <p data-testid="rules-empty" className="rounded-lg border border-dashed border-zinc-300 px-4 py-5 text-center text-sm text-zinc-500">
      {text}
    </p>
  );
}

function inputClass(invalid: boolean): string {
  return [
    "h-8 w-full rounded-lg border-0 bg-white px-2.5 text-sm text-zinc-900 shadow-sm ring-inset placeholder:text-zinc-400 focus:ring-2 focus:outline-none",
    invalid ? "ring-1 ring-red-400 focus:ring-red-500" : "ring-1 ring-zinc-300 focus:ring-indigo-600",
  ].join(" ");
}
