import type { PartOf } from "@/components/chat/types";
import { Badge } from "@/components/ui/badge";
import { Markdown } from "./markdown";

export function TextPartView({ part }: { part: PartOf<"text"> }) {
  if (!part.text.trim() && !part.synthetic) return null;
  return (
    <div className={part.ignored ? "opacity-50" : undefined}>
      {part.synthetic || part.ignored ? (
        <div className="mb-1 flex gap-1.5">
          {part.synthetic ? <Badge>Synthetic</Badge> : null}
          {part.ignored ? <Badge>Ignored</Badge> : null}
        </div>
      ) : null}
      <Markdown text={part.text} />
    </div>
  );
}
