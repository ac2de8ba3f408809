"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { errorMessage } from "@/components/ui/feedback";
import { Section } from "./section";
import { ToolServerForm } from "./tool-server-form";
import { ToolServerRow, type ToolServerView } from "./tool-server-row";

/**
 * The team's tool servers (MCP): every member sees them, their status and their tools
 * (named `<server>_<tool>`, the key of their permission rules); owners and admins add,
 * change, enable or disable, reconnect and remove them. Header values are team secrets,
 * never shown.
 */
export function ToolServers({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const servers = useQuery(trpc.mcp.list.queryOptions({}));
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.mcp.list.queryKey() });
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

  const toggle = (server: ToolServerView) =>
    server.id
      ? save.mutate({
          id: server.id,
          name: server.name,
          type: server.type,
          ...(server.type === "remote" ? { url: server.url } : { command: server.command }),
          headers: server.headers.flatMap((h) => (h.secret ? [{ name: h.name, secret: h.secret, ...(h.prefix ? { prefix: h.prefix } : {}) }] : [])),
          environment: server.environment.flatMap((e) => (e.secret ? [{ name: e.name, secret: e.secret }] : [])),
          writable: server.writable,
          network: server.network,
          oauth: server.oauth,
          oauthPerMember: server.oauthPerMember,
          enabled: !server.enabled,
          allow: server.allow,
          timeoutMs: server.timeoutMs,
        })
      : undefined;
  const error = servers.error ?? reconnect.error ?? save.error ?? remove.error ?? connect.error;

  return (
    <Section
      title="Tool servers"
      testId="tool-servers"
      description="MCP servers whose tools the agent may call in this team's sessions, each as <server>_<tool>. A call asks first unless the permission policy says otherwise; answers are untrusted."
    >
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {errorMessage(error)}
        </p>
      ) : null}
      <ConnectOutcome />
      <ul className="divide-y divide-zinc-100" data-testid="tool-server-list">
        {(servers.data ?? []).map((server) => (
          <ToolServerRow
            key={`${server.source}:${server.name}`}
            server={server}
            connect={() => connect.mutate({ name: server.name, origin: window.location.origin })}
            actions={
              isAdmin
                ? {
                    reconnect: () => reconnect.mutate({ name: server.name }),
                    edit: () => setEditing(server), toggle: () => toggle(server), remove: () => setRemoving(server) }
                : undefined
            }
          />
        ))}
        {servers.isSuccess && servers.data.length === 0 ? <li className="py-2.5 text-sm text-zinc-500">No tool server yet.</li> : null}
      </ul>
      {isAdmin ? (
        <ToolServerForm key={editing?.id ?? "new"} editing={editing} onDone={() => setEditing(undefined)} onSaved={() => void invalidate()} />
      ) : (
        <p data-testid="tool-servers-read-only" className="mt-3 text-sm text-zinc-500">
          Only the team’s owners and admins can add or change tool servers.
        </p>
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
