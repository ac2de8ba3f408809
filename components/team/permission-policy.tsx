"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { type Rule, type RuleRow, RulesEditor, RulesErrors, rulesOf, sameRules, toRows, validateRules } from "@/components/permission/rules-editor";
import { useTRPC } from "@/components/trpc/client";
import { QueryView } from "@/components/ui/feedback";
import { type ProjectScope, ScopePicker, useProjectScope } from "./project-scope";
import { SaveBar } from "./save-bar";
import { AdminsOnly, Section } from "./section";

/** Where permission rules come from, in the order they are read. */
const ORDER = ["Built-in defaults", "Server configuration", "Team policy (all projects)", "Project policy", "Agent", "“Always allow” approvals", "The session’s own rules"];

/**
 * The team's permission policy: rules for all its projects or for one of them. Every
 * member sees them; owners and admins change them (the server refuses anyone else).
 */
export function PermissionPolicy({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const scoped = useProjectScope();
  const { project, scope } = scoped;
  const policy = useQuery(trpc.permission.policy.queryOptions(scope));

  return (
    <Section title="Permission policy" testId="permission-policy" description="What the agent may do without asking, in every session of the team.">
      <PolicyOrder />

      <ScopePicker label="Rules for" allLabel="All projects" testId="policy-scope" scope={scoped} className="mt-4" />

      {isAdmin ? null : <AdminsOnly testId="policy-read-only" may="change the permission policy" />}

      <div className="mt-4">
        <QueryView query={policy} loading="Loading the rules…" failed="Could not load the rules">
          {(data) => (
            <PolicyForm
              key={scoped.key}
              scope={scope}
              initial={data.rules}
              readOnly={!isAdmin}
              emptyText={project ? `No rules for ${project.name}: the rules for all projects apply.` : "No rules for all projects yet."}
            />
          )}
        </QueryView>
      </div>

      <p className="mt-4 border-t border-zinc-100 pt-4 text-sm text-zinc-500">
        “Always allow” answers given in sessions are kept for the whole team: see them on the{" "}
        <Link href="/team/approvals" data-testid="approvals-link" className="font-medium text-indigo-600 hover:text-indigo-800">
          Approvals page
        </Link>
        .
      </p>
    </Section>
  );
}

/** How the layers combine, so admins know what a rule here can and cannot be overridden by. */
function PolicyOrder() {
  return (
    <div data-testid="policy-order" className="space-y-2 rounded-lg bg-zinc-50 px-3.5 py-3 text-sm text-zinc-600 ring-1 ring-zinc-200 ring-inset">
      <p>Rules are read in this order, and the last rule that matches decides:</p>
      <ol aria-label="Order of the rules" className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-xs">
        {ORDER.map((layer, i) => (
          <li key={layer} className="flex items-center gap-1.5">
            {i > 0 ? (
              <span aria-hidden="true" className="text-zinc-400">
                →
              </span>
            ) : null}
            <span className={`rounded-md px-1.5 py-0.5 ring-1 ring-inset ${layer.includes("policy") ? "bg-indigo-50 font-medium text-indigo-700 ring-indigo-600/20" : "bg-white ring-zinc-200"}`}>
              {layer}
            </span>
          </li>
        ))}
      </ol>
      <p>
        <strong className="font-semibold text-zinc-800">A deny here cannot be undone by sessions, agents or approvals.</strong> An ask here stays a
        question: only an owner’s or admin’s “Always allow” answers it (for the whole team, listed under Approvals); members allow it once. Within the policy the last
        matching rule still wins, so it may deny <code className="font-mono">bash</code> for <code className="font-mono">*</code> and allow{" "}
        <code className="font-mono">git *</code> after it. Patterns use <code className="font-mono">*</code> (any run of characters) and{" "}
        <code className="font-mono">?</code> (one character); a tool denied for <code className="font-mono">*</code> is hidden from the model.
      </p>
    </div>
  );
}

/** The rules of one scope: editable for admins (Save replaces them all), text for members. */
function PolicyForm({ scope, initial, readOnly, emptyText }: { scope: ProjectScope; initial: Rule[]; readOnly: boolean; emptyText: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<RuleRow[]>(() => toRows(initial));
  const [saved, setSaved] = useState<Rule[]>(initial);
  const [submitted, setSubmitted] = useState(false);
  const save = useMutation(
    trpc.permission.setPolicy.mutationOptions({
      onSuccess: (result) => {
        setSaved(result.rules);
        setSubmitted(false);
        queryClient.setQueryData(trpc.permission.policy.queryKey(scope), result);
      },
    }),
  );
  const validation = validateRules(rows);
  const dirty = !sameRules(rulesOf(rows), saved);

  if (readOnly) return <RulesEditor rows={rows} onChange={setRows} validation={validation} showErrors={false} emptyText={emptyText} readOnly />;

  const submit = () => {
    setSubmitted(true);
    if (validation.invalid) return;
    save.mutate({ ...scope, rules: rulesOf(rows) });
  };
  const discard = () => {
    setRows(toRows(saved));
    setSubmitted(false);
    save.reset();
  };

  return (
    <form
      noValidate
      data-testid="policy-form"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <RulesEditor rows={rows} onChange={setRows} validation={validation} showErrors={submitted} emptyText={emptyText} />
      <RulesErrors validation={validation} submitted={submitted} error={save.error} testId="policy-save-error" />
      <SaveBar
        testId="policy-status"
        status={dirty ? "Unsaved changes." : save.isSuccess ? "Saved." : ""}
        dirty={dirty}
        saving={save.isPending}
        onDiscard={discard}
        saveLabel="Save policy"
        className="mt-4 border-t border-zinc-100 pt-4"
      />
    </form>
  );
}
