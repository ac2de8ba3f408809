"use client";

import { type ClipboardEvent, type DragEvent, useState } from "react";
import type { Attachments } from "./attachments";

/** Whether a drag carries files (not text or a link). */
function carriesFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer.types).includes("Files");
}

/** Files pasted into the message box or dropped on the composer are attached; `dragging` while files are over it. */
export function useFileDrop(attachments: Attachments) {
  const [dragging, setDragging] = useState(false);
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files);
    if (files.length === 0) return;
    // A copied image comes as a file; copied text (even with a file beside it) is pasted as usual.
    if (!event.clipboardData.types.includes("text/plain")) event.preventDefault();
    void attachments.add(files);
  };
  const onDragOver = (event: DragEvent) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    setDragging(true);
  };
  const onDragLeave = (event: DragEvent<HTMLFormElement>) => {
    if (event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)) return;
    setDragging(false);
  };
  const onDrop = (event: DragEvent) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    setDragging(false);
    void attachments.add(Array.from(event.dataTransfer.files));
  };
  return { dragging, onPaste, form: { onDragOver, onDragLeave, onDrop } };
}
