import type { PartOf } from "@/components/chat/types";
import { Icon } from "./icons";

type FileLike = Pick<PartOf<"file">, "mime" | "filename" | "url" | "source">;

/** Only these URLs become links or image sources; anything else is shown as text. */
function safeUrl(url: string, mime: string): string | undefined {
  if (/^https?:\/\//i.test(url)) return url;
  if (mime.startsWith("image/") && /^data:image\/(png|jpe?g|gif|webp);/i.test(url)) return url;
  return undefined;
}

function nameOf(file: FileLike): string {
  if (file.filename) return file.filename;
  if (file.source?.path) return file.source.path.split("/").pop() ?? file.source.path;
  const last = file.url.split(/[/?#]/).filter(Boolean).pop();
  return last && !file.url.startsWith("data:") ? last : "file";
}

export function FileChip({ file }: { file: FileLike }) {
  const url = safeUrl(file.url, file.mime);
  const image = url && file.mime.startsWith("image/") ? url : undefined;
  const name = nameOf(file);
  const body = (
    <>
      {image ? (
        // eslint-disable-next-line @next/next/no-img-element -- user content of any origin, not optimizable
        <img src={image} alt={name} className="size-10 rounded-md object-cover ring-1 ring-zinc-200" />
      ) : (
        <span className="grid size-10 place-items-center rounded-md bg-indigo-50 text-indigo-500">
          <Icon name="file" className="size-5" />
        </span>
      )}
      <span className="min-w-0">
        <span className="block truncate text-sm font-medium text-zinc-900">{name}</span>
        <span className="block truncate text-xs text-zinc-500">
          {file.mime}
          {file.source ? ` · ${file.source.path}` : ""}
          {file.source?.text ? ` (lines ${file.source.text.start}–${file.source.text.end})` : ""}
        </span>
      </span>
    </>
  );
  const className = "inline-flex max-w-full items-center gap-3 rounded-xl border border-zinc-200 bg-white py-2 pr-4 pl-2 shadow-xs";
  return url ? (
    <a href={url} target="_blank" rel="noopener noreferrer nofollow" className={`${className} hover:border-indigo-300`}>
      {body}
    </a>
  ) : (
    <div className={className}>{body}</div>
  );
}

export function FilePartView({ part }: { part: PartOf<"file"> }) {
  return <FileChip file={part} />;
}
