"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ErrorLine } from "@/components/ui/feedback";
import { type ProjectScope, ScopePicker, useProjectScope } from "./project-scope";
import { AdminsOnly, Section } from "./section";
import { ToolServerForm } from "./tool-server-form";
import { ToolServerRow, type ToolServerView } from "./tool-server-row";

/**
 * The team's tool servers (MCP), for the whole team or one project (the picker): every
 * member sees them, their status and their tools (named `<server>_<tool>`, the key of
 * their permission rules), and a warning when the enabled tools would take a large share
 * of the team's default model's context; owners and admins add, change, enable or
 * disable, reconnect and remove them. Header and environment values are team secrets,
 * never shown.
 */
export function ToolServers({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const scoped = useProjectScope();
  const { scope } = scoped;
  const servers = useQuery(trpc.mcp.list.queryOptions(scope));
  const invalidate = () => Promise.all([queryClient.invalidateQueries({ queryKey: trpc.mcp.list.queryKey() }), queryClient.invalidateQueries({ queryKey: trpc.mcp.budget.queryKey() })]);
  const reconnect = useMutation(trpc.mcp.refresh.mutationOptions({ onSettled: () => void invalidate() }));
  const save = useMutation(trpc.mcp.save.mutationOptions({ onSettled: () => void invalidate() }));
  const remove = useMutation(trpc.mcp.remove.mutationOptions({ onSettled: () => void invalidate() }));
  // OAuth: the browser goes to the authorization server, which sends it back to the callback, then here.
  const connect = useMutation(
    trpc.mcp.connect.mutationOptions({
      onSuccess: (answer) => ("authorizationUrl" in answer ? window.location.assign(answer.authorizationUrl) : void invalidate()),
    }),
  );
  const [editing, setEditing] = useState<ToolServerView>();
  const [removing, setRemoving] = useState<ToolServerView>();

  const toggle = (server: ToolServerView) => (server.id ? save.mutate({ ...savedAs(server, server.source === "project" ? scope : {}), enabled: !server.enabled }) : undefined);
  const error = servers.error ?? reconnect.error ?? save.error ?? remove.error ?? connect.error;

  return (
    <Section
      title="Tool servers"
      testId="tool-servers"
      description="MCP servers whose tools the agent may call in this team's sessions, each as <server>_<tool>. A call asks first unless the permission policy says otherwise; answers are untrusted."
    >
      <ScopePicker label="Servers of" allLabel="The whole team" testId="tool-servers-scope" scope={scoped} className="mb-3" />
      <ErrorLine error={error} />
      <ConnectOutcome />
      <ToolBudget projectId={scope.projectId} />
      <ul className="divide-y divide-zinc-100" data-testid="tool-server-list">
        {(servers.data ?? []).map((server) => (
          <ToolServerRow
            key={`${server.source}:${server.name}`}
            server={server}
            connect={() => connect.mutate({ ...scope, name: server.name, origin: window.location.origin })}
            actions={
              isAdmin
                ? {
                    reconnect: () => reconnect.mutate({ ...scope, name: server.name }),
                    edit: () => setEditing(server), toggle: () => toggle(server), remove: () => setRemoving(server) }
                : undefined
            }
          />
        ))}
        {servers.isSuccess && servers.data.length === 0 ? <li className="py-2.5 text-sm text-zinc-500">No tool server yet.</li> : null}
      </ul>
      {isAdmin ? (
        <ToolServerForm
          key={`${scoped.key}:${editing?.id ?? "new"}`}
          scope={scope}
          project={scoped.project?.name}
          editing={editing}
          onDone={() => setEditing(undefined)}
          onSaved={() => void invalidate()}
        />
      ) : (
        <AdminsOnly testId="tool-servers-read-only" may="add or change tool servers" />
      )}
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove the tool server “${removing?.name ?? ""}”?`}
        confirmLabel="Remove"
        pending={remove.isPending}
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => {
          if (removing?.id) remove.mutate({ id: removing.id }, { onSettled: () => setRemoving(undefined) });
        }}
      >
        Its tools disappear from every session of the team. Its secrets stay in the team’s secrets.
      </ConfirmDialog>
    </Section>
  );
}

/** A listed server as mcp.save takes it again (the toggle changes one field of it). */
function savedAs(server: ToolServerView, scope: ProjectScope) {
  return {
    ...scope,
    ...(server.id ? { id: server.id } : {}),
    name: server.name,
    type: server.type,
    ...(server.type === "remote" ? { url: server.url } : { command: server.command }),
    headers: server.headers.flatMap((h) => (h.secret ? [{ name: h.name, secret: h.secret, ...(h.prefix ? { prefix: h.prefix } : {}) }] : [])),
    environment: server.environment.flatMap((e) => (e.secret ? [{ name: e.name, secret: e.secret }] : [])),
    writable: server.writable,
    network: server.network,
    oauth: server.oauth,
    oauthPerMember: server.oauthPerMember,
    enabled: server.enabled,
    allow: server.allow,
    timeoutMs: server.timeoutMs,
  };
}

/** What the enabled servers' tools take of the team's default model's context (as last listed), with a warning when it is much. */
function ToolBudget({ projectId }: { projectId: string | undefined }) {
  const trpc = useTRPC();
  const budget = useQuery(trpc.mcp.budget.queryOptions(projectId ? { projectId } : {}));
  if (!budget.data || budget.data.tools === 0) return null;
  const { tools, tokens, model, contextTokens, warning } = budget.data;
  const share = contextTokens ? `, ${Math.round((tokens / contextTokens) * 100)}% of the ${contextTokens}-token context of ${model ?? "the default model"}` : "";
  return (
    <div className="mb-2 text-sm" data-testid="tool-servers-budget">
      <p className="text-zinc-500">
        Enabled tools: {tools}, about {tokens} tokens in every request{share}.
      </p>
      {warning ? (
        <p role="alert" data-testid="tool-servers-warning" className="mt-1 text-amber-800">
          {warning}
        </p>
      ) : null}
    </div>
  );
}

/** What the OAuth callback said, from the address it sent the browser back to (/team?connected=… or ?connectError=…). */
function ConnectOutcome() {
  const params = useSearchParams();
  const connected = params.get("connected");
  const failed = params.get("connectError");
  if (failed) {
    return (
      <p role="alert" data-testid="tool-server-connect-error" className="mb-2 text-sm text-red-600">
        {failed}
      </p>
    );
  }
  return connected ? (
    <p role="status" data-testid="tool-server-connected" className="mb-2 text-sm text-emerald-700">
      {connected} is connected.
    </p>
  ) : null;
}
