import type { PartOf } from "@/components/chat/types";
import { shortHash } from "@/components/ui/format";
import { Icon } from "./icons";

/** Files changed by one step, with the snapshot hash they were taken against. */
export function PatchPartView({ part }: { part: PartOf<"patch"> }) {
  const count = part.files.length;
  return (
    <div className="overflow-hidden rounded-xl border border-zinc-200 bg-white">
      <div className="flex items-center gap-2 border-b border-zinc-100 bg-zinc-50 px-3 py-2 text-sm">
        <Icon name="diff" className="size-4 text-emerald-600" />
        <span className="font-medium text-zinc-800">
          {count} {count === 1 ? "file" : "files"} changed
        </span>
        <span className="ml-auto font-mono text-xs text-zinc-500" title={part.hash}>
          {shortHash(part.hash)}
        </span>
      </div>
      {count > 0 ? (
        <ul className="divide-y divide-zinc-100 font-mono text-xs">
          {part.files.map((file) => (
            <li key={file} className="truncate px-3 py-1.5 text-zinc-700" title={file}>
              {file}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
