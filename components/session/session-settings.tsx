"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { type RuleRow, RulesEditor, RulesErrors, rulesOf, toRows, validateRules } from "@/components/permission/rules-editor";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import type { SessionInfo } from "./types";

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
 * The session's own permission rules: evaluated after the built-in defaults, the server
 * configuration, the team's and project's policy, the agent's rules and the team's
 * "always" approvals, so they have the last word (but cannot undo a deny of the server
 * configuration or the policy); within them the last matching rule wins. A tool denied
 * for every pattern is not offered to the model at all.
 */
export function SessionSettings({ session, onClose }: { session: SessionInfo; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [rows, setRows] = useState<RuleRow[]>(() => toRows(session.permission));
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

  const validation = validateRules(rows);
  const submit = () => {
    setSubmitted(true);
    if (validation.invalid) return;
    const rules = rulesOf(rows);
    save.mutate({ sessionId: session.id, patch: { permission: rules.length ? rules : null } });
  };
  const close = () => {
    if (!save.isPending) onClose();
  };

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
              Checked after the team’s defaults, policy and “always” approvals, so these have the last word (except that a deny in the
              team’s permission policy is final); the last matching rule wins.
              Patterns use <code className="font-mono">*</code> (any run of characters) and <code className="font-mono">?</code> (one
              character). A tool denied for <code className="font-mono">*</code> is hidden from the model.
            </p>
          </div>

          <RulesEditor
            rows={rows}
            onChange={setRows}
            validation={validation}
            showErrors={submitted}
            emptyText="No rules of its own: this session follows the team’s rules."
          />
        </section>

        <RulesErrors validation={validation} submitted={submitted} error={save.error} />

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
