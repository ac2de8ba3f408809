import type { Info } from "@/server/session/info";

/**
 * A child session added to (or replaced in) a list kept newest first, as the server lists
 * children (session ids sort newest first); an older copy never replaces a newer one.
 */
export function upsertChild(list: Info[], info: Info): Info[] {
  const current = list.find((c) => c.id === info.id);
  if (current && current.time.updated > info.time.updated) return list;
  return [...list.filter((c) => c.id !== info.id), info].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** The list without that child (the same list when it was not there). */
export function removeChild(list: Info[], id: string): Info[] {
  return list.some((c) => c.id === id) ? list.filter((c) => c.id !== id) : list;
}
