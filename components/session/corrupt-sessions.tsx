import { ErrorNotice } from "@/components/ui/feedback";

/** Sessions a list (the session list, the dashboard) could not read, each with its error; nothing when there are none. */
export function CorruptSessions({ rows }: { rows: { id: string; error: string }[] }) {
  if (rows.length === 0) return null;
  return (
    <ErrorNotice title={`${rows.length} session${rows.length === 1 ? "" : "s"} could not be read`}>
      <ul className="list-inside list-disc font-mono text-xs">
        {rows.map((row) => (
          <li key={row.id}>
            {row.id}: {row.error}
          </li>
        ))}
      </ul>
    </ErrorNotice>
  );
}
