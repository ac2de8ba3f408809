import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

/** `dashboard.list` as the client sends and receives it (server/dashboard is the source of truth). */
export type DashboardInput = inferRouterInputs<AppRouter>["dashboard"]["list"];
export type DashboardResult = inferRouterOutputs<AppRouter>["dashboard"]["list"];
export type DashboardItem = DashboardResult["items"][number];
/** Only the first page (no cursor) carries them; later pages keep the first page's. */
export type DashboardTotals = NonNullable<DashboardResult["totals"]>;

export const STATUSES = ["idle", "busy", "retry"] as const;
export const SORTS = ["updated", "cost", "tokens"] as const;
export const ARCHIVED = ["active", "archived", "all"] as const;
export type StatusFilter = (typeof STATUSES)[number];
export type SortKey = (typeof SORTS)[number];
export type ArchivedFilter = (typeof ARCHIVED)[number];

/**
 * The dashboard's filter as it lives in the page's URL, so a view can be reloaded,
 * bookmarked and shared: `?project=…&author=…&status=busy&from=2026-01-01&to=2026-01-31
 * &archived=all&q=login&sort=cost`. Defaults are left out of the URL.
 */
export interface DashboardQuery {
  projectId?: string;
  authorId?: string;
  status?: StatusFilter;
  /** Updated on or after this day (YYYY-MM-DD, the viewer's time zone). */
  from?: string;
  /** Updated on or before this day (YYYY-MM-DD, inclusive). */
  to?: string;
  archived: ArchivedFilter;
  search?: string;
  sort: SortKey;
}

const PROJECT_ID = /^prj_[0-9A-Za-z]{1,60}$/;
const USER_ID = /^[0-9A-Za-z_-]{1,64}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function oneOf<T extends string>(values: readonly T[], value: string | null): T | undefined {
  return values.find((v) => v === value);
}

function day(value: string | null): string | undefined {
  if (!value || !DAY.test(value)) return undefined;
  return Number.isNaN(localDay(value, false)) ? undefined : value;
}

/** Midnight at the start (or the last millisecond) of a YYYY-MM-DD day in the local time zone. */
export function localDay(value: string, endOfDay: boolean): number {
  const [y, m, d] = value.split("-").map(Number) as [number, number, number];
  const date = endOfDay ? new Date(y, m - 1, d, 23, 59, 59, 999) : new Date(y, m - 1, d);
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d ? date.getTime() : Number.NaN;
}

/** Reads the query from URL parameters; anything unreadable falls back to the default. */
export function parseQuery(params: { get(name: string): string | null }): DashboardQuery {
  const id = (name: string, pattern: RegExp) => {
    const value = params.get(name);
    return value && pattern.test(value) ? value : undefined;
  };
  const search = params.get("q")?.trim().slice(0, 200);
  return {
    projectId: id("project", PROJECT_ID),
    authorId: id("author", USER_ID),
    status: oneOf(STATUSES, params.get("status")),
    from: day(params.get("from")),
    to: day(params.get("to")),
    archived: oneOf(ARCHIVED, params.get("archived")) ?? "active",
    search: search || undefined,
    sort: oneOf(SORTS, params.get("sort")) ?? "updated",
  };
}

/** The URL parameters of a query (defaults omitted), in a stable order. */
export function formatQuery(query: DashboardQuery): string {
  const params = new URLSearchParams();
  if (query.projectId) params.set("project", query.projectId);
  if (query.authorId) params.set("author", query.authorId);
  if (query.status) params.set("status", query.status);
  if (query.from) params.set("from", query.from);
  if (query.to) params.set("to", query.to);
  if (query.archived !== "active") params.set("archived", query.archived);
  if (query.search) params.set("q", query.search);
  if (query.sort !== "updated") params.set("sort", query.sort);
  return params.toString();
}

/** What `dashboard.list` is asked for (without the cursor, which paging adds). */
export function listInput(query: DashboardQuery, limit: number): Omit<DashboardInput, "cursor"> {
  return {
    projectId: query.projectId,
    authorId: query.authorId,
    status: query.status,
    updatedFrom: query.from ? localDay(query.from, false) : undefined,
    updatedTo: query.to ? localDay(query.to, true) : undefined,
    archived: query.archived === "active" ? false : query.archived === "archived" ? true : "all",
    search: query.search,
    sort: query.sort,
    limit,
  };
}

export function isFiltered(query: DashboardQuery): boolean {
  return formatQuery({ ...query, sort: "updated" }) !== "";
}
