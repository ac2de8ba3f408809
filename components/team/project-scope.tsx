"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTRPC } from "@/components/trpc/client";

/** The value of the scope selector for the whole team (every project). */
const ALL = "";

/** What a team-or-project setting is read and written for: the whole team, or one of its projects. */
export type ProjectScope = { projectId?: string };

/**
 * The scope a Team page section shows: the whole team, or one project picked in its
 * `ScopePicker`. A project removed meanwhile falls back to the whole team.
 */
export function useProjectScope() {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions());
  const [chosen, setChosen] = useState(ALL);
  const project = chosen === ALL ? undefined : projects.data?.find((p) => p.id === chosen);
  const scope: ProjectScope = project ? { projectId: project.id } : {};
  return { projects: projects.data ?? [], project, scope, key: project?.id ?? ALL, choose: setChosen };
}

/** The scope selector, on a line of its own (`className` spaces it): a label, then the whole team (`allLabel`) and each project. */
export function ScopePicker(props: { label: string; allLabel: string; testId: string; scope: ReturnType<typeof useProjectScope>; className?: string }) {
  const id = useId();
  const { projects, key, choose } = props.scope;
  return (
    <div className={`flex flex-wrap items-center gap-2 ${props.className ?? ""}`}>
      <label htmlFor={id} className="text-sm font-medium text-zinc-700">
        {props.label}
      </label>
      <select
        id={id}
        data-testid={props.testId}
        value={key}
        onChange={(event) => choose(event.target.value)}
        className="h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600"
      >
        <option value={ALL}>{props.allLabel}</option>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </div>
  );
}
