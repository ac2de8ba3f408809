"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/components/ui/feedback";
import { formatCost } from "@/components/ui/format";

/** This month's spending of the team: its total against its limit, the notice at 80 %, and the cost per member and per project. */
export function SpendingCard() {
  const trpc = useTRPC();
  const spending = useQuery(trpc.provider.spending.queryOptions(undefined, { refetchInterval: 30_000 }));
  if (spending.error) {
    return (
      <p role="alert" className="text-sm text-red-600">
        Spending unavailable: {errorMessage(spending.error)}
      </p>
    );
  }
  const data = spending.data;
  if (!data) return null;
  return (
    <section aria-label="Spending this month" className="rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm" data-testid="spending">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 className="text-sm font-semibold text-zinc-900">Spending in {data.month.name}</h2>
        <span className="text-sm text-zinc-700" data-testid="spending-team">
          {formatCost(data.team)}
          {data.limits.team !== null ? ` of ${formatCost(data.limits.team)}` : ""}
        </span>
        {data.limits.member !== null ? <span className="text-xs text-zinc-500">limit per member {formatCost(data.limits.member)}</span> : null}
      </div>
      {data.notice ? (
        <p role="status" className="mt-2 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-800" data-testid="spending-notice">
          {data.notice}
        </p>
      ) : null}
      <div className="mt-3 grid gap-4 sm:grid-cols-2">
        {(
          [
            ["By member", data.members.map((m) => ({ id: m.userId, name: m.name, cost: m.cost })), "spending-member"],
            ["By project", data.projects.map((p) => ({ id: p.projectId, name: p.name, cost: p.cost })), "spending-project"],
          ] as const
        ).map(([title, rows, testId]) => (
          <table key={title} className="w-full text-sm">
            <caption className="text-left text-xs font-semibold tracking-wide text-zinc-500 uppercase">{title}</caption>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-testid={testId} className="border-t border-zinc-100">
                  <td className="py-1 text-zinc-800">{row.name}</td>
                  <td className="py-1 text-right font-mono text-zinc-700">{formatCost(row.cost)}</td>
                </tr>
              ))}
              {rows.length === 0 ? (
                <tr>
                  <td className="py-1 text-zinc-500">Nothing spent yet.</td>
                </tr>
              ) : null}
            </tbody>
          </table>
        ))}
      </div>
    </section>
  );
}
