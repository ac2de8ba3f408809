"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner, errorMessage } from "@/components/ui/feedback";
import type { ToolServerView } from "./tool-server-row";

const INPUT =
  "h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";

/**
 * Adding a remote tool server, or changing one (`editing`). Its header's value is a team
 * secret: an existing one of kind "HTTP header value", or a new value typed here, which is
 * saved as the secret `mcp-<name>` first — write-only, never shown again.
 */
export function ToolServerForm({ editing, onDone, onSaved }: { editing: ToolServerView | undefined; onDone: () => void; onSaved: () => void }) {
  const trpc = useTRPC();
  const secrets = useQuery(trpc.secret.list.queryOptions());
  const setSecret = useMutation(trpc.secret.set.mutationOptions());
  const save = useMutation(trpc.mcp.save.mutationOptions({ onSuccess: () => onSaved() }));
  const header = editing?.headers[0];
  const pending = setSecret.isPending || save.isPending;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (key: string) => String(data.get(key) ?? "").trim();
    const name = text("name");
    const allow = text("allow").split(/[\s,]+/).filter(Boolean);
    const timeout = Number(text("timeout"));
    const prefix = String(data.get("prefix") ?? "");
    const finish = (secret: string) =>
      save.mutate(
        {
          ...(editing?.id ? { id: editing.id } : {}),
          name,
          url: text("url"),
          headers: secret && text("header") ? [{ name: text("header"), secret, ...(prefix ? { prefix } : {}) }] : [],
          enabled: editing?.enabled ?? true,
          allow: allow.length ? allow : null,
          oauth: data.get("oauth") === "on",
          oauthPerMember: data.get("oauth") === "on" && data.get("perMember") === "on",
          timeoutMs: timeout > 0 ? timeout * 1000 : null,
        },
        {
          onSuccess: () => {
            form.reset();
            onDone();
          },
        },
      );
    // A value typed here becomes the team secret mcp-<name> (kind "header") before the server is saved.
    if (String(data.get("value") ?? "") === "") finish(text("secret"));
    else setSecret.mutate({ name: `mcp-${name}`, kind: "header", value: String(data.get("value")) }, { onSuccess: () => finish(`mcp-${name}`) });
  }

  const error = setSecret.error ?? save.error;
  const headerSecrets = (secrets.data ?? []).filter((s) => s.kind === "header");
  return (
    <form onSubmit={submit} className="mt-4 space-y-2 border-t border-zinc-100 pt-4" data-testid="tool-server-form">
      <p className="text-sm text-zinc-700">{editing ? `Change ${editing.name}` : "Add a remote tool server (MCP, Streamable HTTP or SSE)"}</p>
      <div className="flex flex-wrap items-center gap-2">
        <input name="name" required defaultValue={editing?.name} readOnly={editing !== undefined} pattern="[a-z0-9][a-z0-9\-]{0,31}" placeholder="name, e.g. docs" aria-label="Server name" className={`${INPUT} w-40 font-mono`} />
        <input name="url" required type="url" defaultValue={editing?.url} placeholder="https://tools.example.com/mcp" aria-label="Server URL" className={`${INPUT} min-w-72 flex-1 font-mono`} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <input name="header" defaultValue={header?.name ?? "Authorization"} aria-label="Header name" className={`${INPUT} w-40 font-mono`} />
        <input name="prefix" defaultValue={header?.prefix ?? "Bearer "} aria-label="Value prefix" className={`${INPUT} w-24 font-mono`} />
        <select name="secret" aria-label="Header secret" defaultValue={header?.secret ?? ""} className={INPUT}>
          <option value="">No secret</option>
          {headerSecrets.map((s) => (
            <option key={s.name} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
        <input name="value" type="password" autoComplete="off" spellCheck={false} placeholder="or a new secret value" aria-label="New header value" className={`${INPUT} min-w-48 flex-1 font-mono`} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <input name="allow" defaultValue={editing?.allow?.join(", ") ?? ""} placeholder="tools to offer (all when empty)" aria-label="Allowed tools" className={`${INPUT} min-w-64 flex-1`} />
        <label className="flex items-center gap-1.5 text-sm text-zinc-700">
          <input name="oauth" type="checkbox" defaultChecked={editing?.oauth ?? false} aria-label="Uses OAuth" />
          OAuth
        </label>
        <label className="flex items-center gap-1.5 text-sm text-zinc-700">
          <input name="perMember" type="checkbox" defaultChecked={editing?.oauthPerMember ?? false} aria-label="Each member connects their own account" />
          per member
        </label>
        <input name="timeout" type="number" min={1} max={600} defaultValue={editing ? Math.round(editing.timeoutMs / 1000) : ""} placeholder="timeout (s)" aria-label="Timeout in seconds" className={`${INPUT} w-32`} />
      </div>
      <div className="flex items-center gap-2">
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? <Spinner /> : null}
          {editing ? "Save" : "Add server"}
        </Button>
        {editing ? <Button onClick={onDone}>Cancel</Button> : null}
      </div>
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {errorMessage(error)}
        </p>
      ) : null}
    </form>
  );
}
