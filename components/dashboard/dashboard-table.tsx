"use client";

import Link from "next/link";
import type { Status } from "@/components/chat/types";
import { Highlight } from "@/components/search/highlight";
import { SnippetLine } from "@/components/search/snippet";
import { Badge } from "@/components/ui/badge";
import { formatCost, formatCount, formatTokens, totalTokens } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import { BranchBadge } from "@/components/workspace/branch-badge";
import type { DashboardItem, DashboardTotals } from "./query";
import type { TreeRow } from "./tree";

const th = "px-3 py-2.5 text-left text-xs font-semibold tracking-wide whitespace-nowrap text-zinc-500 uppercase";
/** The table's columns; the numbers' are right-aligned. */
const COLUMNS = ["Session", "Author", "Project", "Status", "Updated", "Cost", "Tokens", "Lines", "Share"];
const NUMERIC = new Set(["Cost", "Tokens", "Lines"]);
/** A table cell from the `md` width up; below it (phones) each row is a card and its cells a two-column grid. */
const cell = "px-3 py-2.5 align-top whitespace-nowrap max-md:p-0 max-md:whitespace-normal";
/** A cell that, in a card, is labelled by its `data-label` (shown through ::before, so the cell's own text stays what it is). */
const td = `${cell} max-md:flex max-md:flex-col max-md:gap-0.5 max-md:before:font-sans max-md:before:text-[11px] max-md:before:font-semibold max-md:before:tracking-wide max-md:before:text-zinc-500 max-md:before:uppercase max-md:before:content-[attr(data-label)]`;
/** A cell spanning the whole card (the session, the totals' caption). */
const wide = `${cell} max-md:col-span-2 max-md:block`;
/** Numbers are right-aligned in the table; in a card they start on the left like the rest. */
const num = "text-right max-md:text-left";
/** A row: a table row, or a card of two columns on phones. */
const card = "max-md:grid max-md:grid-cols-2 max-md:gap-x-4 max-md:gap-y-3 max-md:px-4 max-md:py-3.5";

/** The sessions as a tree table, with the totals of the whole filter in its footer. */
export function DashboardTable({
  rows,
  totals,
  statuses,
  collapsed,
  onToggle,
}: {
  rows: TreeRow<DashboardItem>[];
  totals: DashboardTotals;
  statuses: ReadonlyMap<string, Status>;
  collapsed: ReadonlySet<string>;
  onToggle: (sessionId: string) => void;
}) {
  return (
    <div className="overflow-x-auto rounded-2xl bg-white shadow-sm ring-1 ring-zinc-200">
      <table data-testid="dashboard-table" className="min-w-full divide-y divide-zinc-200 text-sm max-md:block">
        <thead className="bg-zinc-50/80 max-md:hidden">
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className={NUMERIC.has(column) ? `${th} text-right` : th}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 max-md:block">
          {rows.map((row) => (
            <Row
              key={row.item.session.id}
              row={row}
              status={statuses.get(row.item.session.id) ?? row.item.session.status ?? { type: "idle" }}
              collapsed={collapsed.has(row.item.session.id)}
              onToggle={onToggle}
            />
          ))}
        </tbody>
        <tfoot data-testid="dashboard-totals" className="border-t-2 border-zinc-200 bg-zinc-50/80 font-medium text-zinc-900 max-md:block">
          <tr className={card}>
            <td className={wide} colSpan={5}>
              Total for this filter: <span data-testid="totals-sessions">{totals.sessions.toLocaleString("en")}</span>{" "}
              {totals.sessions === 1 ? "session" : "sessions"}
            </td>
            <td className={`${td} ${num} font-mono tabular-nums`} data-label="Cost" data-testid="totals-cost">
              {formatCost(totals.cost)}
            </td>
            <td className={`${td} ${num} tabular-nums`} data-label="Tokens" data-testid="totals-tokens" data-tokens={totalTokens(totals.tokens)} title={`${totalTokens(totals.tokens).toLocaleString("en")} tokens`}>
              {formatTokens(totalTokens(totals.tokens))}
            </td>
            <td className={`${td} ${num} font-mono`} data-label="Lines" data-testid="totals-lines">
              <Lines additions={totals.additions} deletions={totals.deletions} />
            </td>
            <td className={`${cell} max-md:hidden`} />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

function Row({ row, status, collapsed, onToggle }: { row: TreeRow<DashboardItem>; status: Status; collapsed: boolean; onToggle: (sessionId: string) => void }) {
  const { session, author, project, childCount, workspace, match } = row.item;
  const tokens = totalTokens(session.tokens);
  return (
    <tr
      data-testid="dashboard-row"
      data-session-id={session.id}
      data-parent-id={session.parentId ?? ""}
      data-depth={row.depth}
      className={`transition-colors hover:bg-zinc-50 ${card}`}
    >
      <td className={`${wide} max-w-md whitespace-normal max-md:max-w-none`}>
        <div className="flex items-start gap-1.5" style={{ paddingLeft: `${row.depth * 1.25}rem` }}>
          {row.children > 0 ? (
            <button
              type="button"
              onClick={() => onToggle(session.id)}
              aria-expanded={!collapsed}
              aria-label={`${collapsed ? "Show" : "Hide"} child sessions of ${session.title}`}
              className="mt-0.5 grid size-5 shrink-0 place-items-center rounded text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900"
            >
              <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={`size-3.5 transition-transform ${collapsed ? "" : "rotate-90"}`}>
                <path fillRule="evenodd" d="M7.2 14.8a.75.75 0 0 1 0-1.06L10.94 10 7.2 6.26a.75.75 0 1 1 1.06-1.06l4.27 4.27a.75.75 0 0 1 0 1.06l-4.27 4.27a.75.75 0 0 1-1.06 0z" clipRule="evenodd" />
              </svg>
            </button>
          ) : session.parentId ? (
            <span className="mt-0.5 w-5 shrink-0 text-center text-zinc-400" aria-hidden="true">
              ↳
            </span>
          ) : (
            <span className="w-5 shrink-0" aria-hidden="true" />
          )}
          <div className="min-w-0">
            <Link href={`/sessions/${session.id}`} className="font-medium break-words text-zinc-900 hover:text-indigo-600">
              {match ? <Highlight segments={match.title} /> : session.title}
            </Link>
            {match?.snippet ? <SnippetLine snippet={match.snippet} /> : null}
            <div className="mt-0.5 flex flex-wrap items-center gap-1.5 text-xs text-zinc-500">
              {session.time.archived !== undefined ? <Badge>Archived</Badge> : null}
              <BranchBadge workspace={workspace} className="max-w-72" />
              {childCount > 0 ? (
                <span data-testid="child-count">
                  {childCount} {childCount === 1 ? "child" : "children"}
                </span>
              ) : null}
              {row.detachedFrom ? (
                <span data-testid="detached-parent">
                  child of{" "}
                  <Link href={`/sessions/${row.detachedFrom}`} className="text-indigo-600 hover:text-indigo-800">
                    its parent session
                  </Link>
                </span>
              ) : null}
            </div>
          </div>
        </div>
      </td>
      <td className={`${td} text-zinc-700`} data-label="Author" title={author.email}>
        <span className="block max-w-40 truncate max-md:max-w-none">{author.name || author.email}</span>
      </td>
      <td className={`${td} text-zinc-700`} data-label="Project" title={project.name}>
        <span className="block max-w-40 truncate max-md:max-w-none">{project.name}</span>
      </td>
      <td className={`${td} max-md:items-start`} data-label="Status" data-testid="row-status" data-status={status.type}>
        <StatusBadge status={status} />
      </td>
      <td className={`${td} text-zinc-600`} data-label="Updated">
        <RelativeTime time={session.time.updated} />
      </td>
      <td className={`${td} ${num} font-mono text-zinc-700 tabular-nums`} data-label="Cost" data-testid="row-cost">
        {formatCost(session.cost)}
      </td>
      <td className={`${td} ${num} text-zinc-600 tabular-nums`} data-label="Tokens" data-testid="row-tokens" data-tokens={tokens} title={`${tokens.toLocaleString("en")} tokens`}>
        {formatCount(tokens)}
      </td>
      <td className={`${td} ${num} font-mono`} data-label="Lines" data-testid="row-lines">
        {session.summary ? <Lines additions={session.summary.additions} deletions={session.summary.deletions} /> : <span className="text-zinc-400">—</span>}
      </td>
      <td className={td} data-label="Share">
        {session.share ? (
          <a href={session.share.url} target="_blank" rel="noopener noreferrer" data-testid="row-share" className="text-indigo-600 hover:text-indigo-800">
            Shared link
          </a>
        ) : (
          <span className="text-zinc-400">—</span>
        )}
      </td>
    </tr>
  );
}

function Lines({ additions, deletions }: { additions: number; deletions: number }) {
  return (
    <span className="whitespace-nowrap">
      <span className="text-emerald-600">+{formatCount(additions)}</span> <span className="text-red-600">−{formatCount(deletions)}</span>
    </span>
  );
}

function StatusBadge({ status }: { status: Status }) {
  if (status.type === "busy") return <Badge tone="blue">Working</Badge>;
  if (status.type === "retry") {
    return (
      <span title={status.message}>
        <Badge tone="amber">Retrying ({status.attempt})</Badge>
      </span>
    );
  }
  return <span className="text-xs text-zinc-400">Idle</span>;
}
