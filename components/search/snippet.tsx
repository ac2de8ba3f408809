import type { Snippet } from "@/server/search/search";
import { Highlight } from "./highlight";

const KIND_LABEL: Record<Snippet["kind"], string> = {
  title: "Title",
  text: "Message",
  tool: "Tool",
  file: "File",
  patch: "Changed files",
};

/** Where a session matched: the kind of part, its title or path, and the words around the match. */
export function SnippetLine({ snippet }: { snippet: Snippet }) {
  if (snippet.kind === "title") return null;
  return (
    <p data-testid="search-snippet" data-kind={snippet.kind} className="mt-1 line-clamp-2 text-xs break-words text-zinc-600">
      <span className="mr-1.5 rounded bg-zinc-100 px-1 py-0.5 font-medium text-zinc-600">{KIND_LABEL[snippet.kind]}</span>
      {snippet.label ? (
        <>
          <Highlight segments={snippet.label} className="font-medium text-zinc-700" />
          <span aria-hidden="true"> · </span>
        </>
      ) : null}
      <Highlight segments={snippet.segments} className="font-mono" />
    </p>
  );
}
