"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import type { SessionInfo } from "@/components/session/types";
import { useTRPC } from "@/components/trpc/client";
import { announce } from "@/components/ui/announce";
import type { Attachment } from "@/lib/attachments";
import type { AppRouter } from "@/server/trpc/router";
import type { ModelRef } from "./model-picker";
import { commandCall, shellCommand } from "./slash";

type CommandResult = inferRouterOutputs<AppRouter>["session"]["command"];

/** What the composer holds when the member sends. */
export interface Draft {
  text: string;
  files: Attachment[];
  /** The files the text mentions. */
  mentions: string[];
}

export interface ComposerSend {
  /** `!command` runs in the sandbox, `/name arguments` runs a command, anything else is a prompt. */
  send: (draft: Draft) => void;
  pending: boolean;
  /** Why the last send failed: what was refused, and the request's error. */
  failure: { what: string; error: RequestError } | undefined;
}

export interface RequestError {
  message: string;
  data?: { issues?: { message: string }[] | undefined } | null | undefined;
}

/**
 * Sending what the composer holds: a prompt (session.prompt), a command (session.command:
 * its built-ins' results acted on here — /undo puts the prompt back, /share and /redo
 * update the session) or a `!command` (session.shell, which waits while permission is asked).
 * `done` is told what was sent; `replace` takes the text /undo gives back.
 */
export function useComposerSend(input: {
  session: SessionInfo;
  agent: string | undefined;
  model: ModelRef | undefined;
  names: ReadonlySet<string>;
  done: (draft: Draft) => void;
  replace: (text: string) => void;
}): ComposerSend {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [resolving, setResolving] = useState(false);
  const prompt = useMutation(trpc.session.prompt.mutationOptions());
  const command = useMutation(trpc.session.command.mutationOptions());
  const shell = useMutation(trpc.session.shell.mutationOptions());
  const sessionId = input.session.id;
  const choice = { ...(input.agent ? { agent: input.agent } : {}), ...(input.model ? { model: input.model } : {}) };

  const showSession = (info: SessionInfo) => queryClient.setQueryData(trpc.session.get.queryKey({ sessionId: info.id }), info);
  const commandDone = (draft: Draft, result: CommandResult) => {
    if (result.type === "undo") {
      showSession(result.session);
      input.replace(result.text);
      announce("The last message was undone: its text is back in the message box.");
      return;
    }
    input.done({ ...draft, files: [], mentions: [] });
    if (result.type === "share" || result.type === "redo") showSession(result.session);
    if (result.type === "share") {
      void queryClient.invalidateQueries({ queryKey: trpc.share.listShares.pathKey() });
      announce("The session is shared: its link is under Share.");
    }
  };
  /** The session's command names: those the `/` menu loaded, else asked for now. */
  const commandNames = async (): Promise<ReadonlySet<string>> => {
    if (input.names.size > 0) return input.names;
    const listed = await queryClient.fetchQuery(trpc.command.list.queryOptions({ sessionId }, { staleTime: 30_000 }));
    return new Set(listed.commands.map((c) => c.name));
  };
  const sendPrompt = (draft: Draft) => {
    prompt.mutate(
      {
        sessionId,
        parts: [
          ...(draft.text.trim() === "" ? [] : [{ type: "text" as const, text: draft.text }]),
          ...draft.files.map((file) => ({ type: "file" as const, mime: file.mime, filename: file.name, url: file.url })),
          ...draft.mentions.map((path) => ({ type: "mention" as const, path })),
        ],
        ...choice,
      },
      { onSuccess: () => input.done(draft) },
    );
  };
  const send = (draft: Draft) => {
    for (const m of [prompt, command, shell]) m.reset();
    const run = shellCommand(draft.text);
    if (run !== undefined) {
      shell.mutate({ sessionId, command: run, ...choice }, { onSuccess: () => input.done({ ...draft, files: [], mentions: [] }) });
      return;
    }
    if (!draft.text.startsWith("/")) return sendPrompt(draft);
    setResolving(true);
    commandNames()
      .then((names) => {
        const call = commandCall(draft.text, names);
        if (!call) return sendPrompt(draft);
        command.mutate({ sessionId, command: call.name, arguments: call.arguments, ...choice }, { onSuccess: (result) => commandDone(draft, result) });
      })
      // The commands could not be listed: the text goes as the prompt it may well be.
      .catch((error: unknown) => {
        console.warn("[composer] the commands could not be listed", error);
        sendPrompt(draft);
      })
      .finally(() => setResolving(false));
  };
  const failure = prompt.error
    ? { what: "The message was not sent", error: prompt.error }
    : command.error
      ? { what: "The command did not run", error: command.error }
      : shell.error
        ? { what: "The shell command did not run", error: shell.error }
        : undefined;
  return { send, pending: resolving || prompt.isPending || command.isPending || shell.isPending, failure };
}
