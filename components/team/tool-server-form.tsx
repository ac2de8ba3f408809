"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import type { ProjectScope } from "./project-scope";
import type { ToolServerView } from "./tool-server-row";

const INPUT =
  "h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";
/** A checkbox of the form: `label` names it for assistive technology, `children` is the short text beside it. */
function Check({ name, checked, label, children }: { name: string; checked: boolean; label: string; children: ReactNode }) {
  return (
    <label className="flex items-center gap-1.5 text-sm text-zinc-700">
      <input name={name} type="checkbox" defaultChecked={checked} aria-label={label} />
      {children}
    </label>
  );
}

type Secret = { name: string };
type Read = (key: string) => string;

/** The team secret a value typed in the form is kept as: `mcp-<server>` for a header, `mcp-<server>-<variable>` for a variable. */
const secretName = (server: string, variable?: string) => (variable ? `mcp-${server}-${variable.toLowerCase()}` : `mcp-${server}`).slice(0, 64);

/**
 * Adding a tool server to the team or to the project picked above, or changing one
 * (`editing`): remote (a URL, a header whose value is a team secret, OAuth) or local (a
 * command, one argument per line, run in the tool sandbox, with environment variables
 * whose values are team secrets), enabled or not, with an allow-list of its tools and a
 * timeout. A value typed here is saved as a team secret first — write-only, never shown again.
 */
export function ToolServerForm(props: { scope: ProjectScope; project: string | undefined; editing: ToolServerView | undefined; onDone: () => void; onSaved: () => void }) {
  const { editing, scope } = props;
  const trpc = useTRPC();
  const secrets = useQuery(trpc.secret.list.queryOptions());
  const setSecret = useMutation(trpc.secret.set.mutationOptions());
  const save = useMutation(trpc.mcp.save.mutationOptions({ onSuccess: () => props.onSaved() }));
  const [type, setType] = useState<"remote" | "local">(editing?.type ?? "remote");
  const [variables, setVariables] = useState(Math.max(1, editing?.environment.length ?? 0));
  const pending = setSecret.isPending || save.isPending;

  /** The secret a field names, or the one a typed value is saved as (kind "header"). */
  async function secretOf(picked: string, typed: string, name: string): Promise<string> {
    if (typed === "") return picked;
    await setSecret.mutateAsync({ name, kind: "header", value: typed });
    return name;
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const raw: Read = (key) => String(data.get(key) ?? "");
    const text: Read = (key) => raw(key).trim();
    const name = text("name");
    const allow = text("allow").split(/[\s,]+/).filter(Boolean);
    const timeout = Number(text("timeout"));
    let specific;
    if (type === "remote") {
      const secret = await secretOf(text("secret"), raw("value"), secretName(name));
      const prefix = raw("prefix");
      const headers = secret && text("header") ? [{ name: text("header"), secret, ...(prefix ? { prefix } : {}) }] : [];
      specific = { url: text("url"), headers, oauth: data.get("oauth") === "on", oauthPerMember: data.get("oauth") === "on" && data.get("perMember") === "on" };
    } else {
      const environment = [];
      for (let i = 0; i < variables; i++) {
        const variable = text(`env-name-${i}`);
        const secret = variable ? await secretOf(text(`env-secret-${i}`), raw(`env-value-${i}`), secretName(name, variable)) : "";
        if (variable && secret) environment.push({ name: variable, secret });
      }
      const command = raw("command").split("\n").map((line) => line.trim()).filter(Boolean);
      specific = { command, environment, network: data.get("network") === "on", writable: data.get("writable") === "on" };
    }
    const input = { ...scope, ...(editing?.id ? { id: editing.id } : {}), name, type, ...specific, enabled: data.get("enabled") === "on", allow: allow.length ? allow : null, timeoutMs: timeout > 0 ? timeout * 1000 : null };
    save.mutate(input, {
      onSuccess: () => {
        form.reset();
        props.onDone();
      },
    });
  }

  const error = setSecret.error ?? save.error;
  const headerSecrets = (secrets.data ?? []).filter((s) => s.kind === "header");
  const where = props.project ? `the project ${props.project}` : "the whole team";
  return (
    <form onSubmit={(event) => void submit(event).catch(() => undefined)} className="mt-4 space-y-2 border-t border-zinc-100 pt-4" data-testid="tool-server-form">
      <p className="text-sm text-zinc-700">{editing ? `Change ${editing.name} (${where})` : `Add a tool server (MCP) for ${where}`}</p>
      <div className="flex flex-wrap items-center gap-2">
        <input name="name" required defaultValue={editing?.name} readOnly={editing !== undefined} pattern="[a-z0-9][a-z0-9\-]{0,31}" placeholder="name, e.g. docs" aria-label="Server name" className={`${INPUT} w-40 font-mono`} />
        <select name="type" aria-label="Server type" value={type} onChange={(event) => setType(event.target.value === "local" ? "local" : "remote")} className={INPUT}>
          <option value="remote">Remote (Streamable HTTP or SSE)</option>
          <option value="local">Local (a command in the sandbox)</option>
        </select>
      </div>
      {type === "remote" ? <RemoteFields editing={editing} secrets={headerSecrets} /> : <LocalFields editing={editing} secrets={headerSecrets} count={variables} more={() => setVariables((n) => n + 1)} />}
      <div className="flex flex-wrap items-center gap-2">
        <input name="allow" defaultValue={editing?.allow?.join(", ") ?? ""} placeholder="tools to offer (all when empty)" aria-label="Allowed tools" className={`${INPUT} min-w-64 flex-1`} />
        <input name="timeout" type="number" min={1} max={600} defaultValue={editing ? Math.round(editing.timeoutMs / 1000) : ""} placeholder="timeout (s)" aria-label="Timeout in seconds" className={`${INPUT} w-32`} />
        <Check name="enabled" checked={editing?.enabled ?? true} label="Enabled">
          enabled
        </Check>
      </div>
      <div className="flex items-center gap-2">
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? <Spinner /> : null}
          {editing ? "Save" : "Add server"}
        </Button>
        {editing ? <Button onClick={props.onDone}>Cancel</Button> : null}
      </div>
      <ErrorLine error={error} />
    </form>
  );
}

function SecretSelect({ name, label, secrets, value }: { name: string; label: string; secrets: Secret[]; value: string | undefined }) {
  return (
    <select name={name} aria-label={label} defaultValue={value ?? ""} className={INPUT}>
      <option value="">No secret</option>
      {secrets.map((s) => (
        <option key={s.name} value={s.name}>
          {s.name}
        </option>
      ))}
    </select>
  );
}

/** A remote server's URL, its header (a team secret's value after a prefix) and OAuth. */
function RemoteFields({ editing, secrets }: { editing: ToolServerView | undefined; secrets: Secret[] }) {
  const header = editing?.headers[0];
  return (
    <>
      <div className="flex flex-wrap items-center gap-2">
        <input name="url" required type="url" defaultValue={editing?.url} placeholder="https://tools.example.com/mcp" aria-label="Server URL" className={`${INPUT} min-w-72 flex-1 font-mono`} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <input name="header" defaultValue={header?.name ?? "Authorization"} aria-label="Header name" className={`${INPUT} w-40 font-mono`} />
        <input name="prefix" defaultValue={header?.prefix ?? "Bearer "} aria-label="Value prefix" className={`${INPUT} w-24 font-mono`} />
        <SecretSelect name="secret" label="Header secret" secrets={secrets} value={header?.secret} />
        <input name="value" type="password" autoComplete="off" spellCheck={false} placeholder="or a new secret value" aria-label="New header value" className={`${INPUT} min-w-48 flex-1 font-mono`} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Check name="oauth" checked={editing?.oauth ?? false} label="Uses OAuth">
          OAuth
        </Check>
        <Check name="perMember" checked={editing?.oauthPerMember ?? false} label="Each member connects their own account">
          per member
        </Check>
      </div>
    </>
  );
}

/** A local server's command (one argument per line), its environment (each value a team secret's) and what it may reach. */
function LocalFields({ editing, secrets, count, more }: { editing: ToolServerView | undefined; secrets: Secret[]; count: number; more: () => void }) {
  const env = editing?.type === "local" ? editing.environment : [];
  return (
    <>
      <textarea
        name="command"
        required
        rows={3}
        defaultValue={editing?.type === "local" ? editing.command.join("\n") : ""}
        placeholder={"node\n.mcp/server.mjs"}
        aria-label="Command, one argument per line"
        className="block w-full rounded-lg border-0 bg-white px-3 py-2 font-mono text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600"
      />
      <p className="text-xs text-zinc-500">It runs in the tool sandbox in the project’s folder: no network and a read-only project unless allowed below, and only these variables in its environment.</p>
      {Array.from({ length: count }, (_, i) => (
        <div key={i} className="flex flex-wrap items-center gap-2" data-testid="tool-server-variable">
          <input name={`env-name-${i}`} defaultValue={env[i]?.name ?? ""} placeholder="VARIABLE" aria-label={`Variable ${i + 1} name`} className={`${INPUT} w-48 font-mono`} />
          <SecretSelect name={`env-secret-${i}`} label={`Variable ${i + 1} secret`} secrets={secrets} value={env[i]?.secret} />
          <input name={`env-value-${i}`} type="password" autoComplete="off" spellCheck={false} placeholder="or a new secret value" aria-label={`Variable ${i + 1} new value`} className={`${INPUT} min-w-48 flex-1 font-mono`} />
        </div>
      ))}
      <div className="flex flex-wrap items-center gap-3">
        <Button size="sm" onClick={more}>
          Add a variable
        </Button>
        <Check name="network" checked={editing?.network ?? false} label="May use the network">
          network
        </Check>
        <Check name="writable" checked={editing?.writable ?? false} label="May write to the project">
          writes the project
        </Check>
      </div>
    </>
  );
}
