import path from "node:path";
import type { WithParts } from "../session/message";
import { isInside } from "../inside";
import type { NearbyRules, NestedRule } from "../tool/tool";
import { labelOf, present, readConfined } from "./read";
import { DEFAULT_MAX_FILE_BYTES, RULE_FILES, block, cutNote } from "./sources";

/**
 * Nested rules, as OpenCode attaches them: when `read` opens a file in a folder of the
 * workspace, the rule file of each folder between it and the root (the root's own is in
 * the system prompt already; in each folder the first of RULE_FILES there) is appended to
 * the tool's result — unless the system prompt holds it, an earlier read result still in
 * view holds it, a read of the same step already took it, or the permission rules deny
 * reading it (Parley's addition: a denied file never reaches the model this way). The result's metadata lists
 * what it appended (`loaded`), which is how later steps know.
 */


/** The rule files earlier read results still in view appended (compacted results no longer count). */
export function loadedRules(messages: WithParts[]): Set<string> {
  const loaded = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type !== "tool" || part.tool !== "read" || part.state.status !== "completed") continue;
      if (part.state.time.compacted !== undefined) continue;
      const list = part.state.metadata.loaded;
      if (!Array.isArray(list)) continue;
      for (const label of list) if (typeof label === "string") loaded.add(label);
    }
  }
  return loaded;
}

/** The nested rules of one step: `system` holds the labels its prompt has, `loaded` those earlier results hold. */
export class StepRules implements NearbyRules {
  private readonly claimed = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly system: ReadonlySet<string>,
    private readonly loaded: ReadonlySet<string>,
    private readonly maxBytes = DEFAULT_MAX_FILE_BYTES,
  ) {}

  async near(file: string, readable: (label: string) => boolean = () => true): Promise<NestedRule[]> {
    const root = path.resolve(this.root);
    const target = path.resolve(file);
    const folders: string[] = [];
    for (let at = path.dirname(target); at !== root && isInside(root, at); at = path.dirname(at)) folders.unshift(at);
    const found: NestedRule[] = [];
    for (const folder of folders) {
      const rule = await this.ruleOf(folder);
      if (rule === undefined || rule === target) continue;
      const label = labelOf(root, rule);
      if (this.system.has(label) || this.loaded.has(label) || this.claimed.has(label) || !readable(label)) continue;
      // Claimed before it is read: two reads of the same step at once append it once.
      this.claimed.add(label);
      const read = await readConfined(root, rule, label, this.maxBytes);
      if (read.kind !== "read" || read.text.trim() === "") continue;
      found.push({ label, text: block(label, read.text, read.cut ? cutNote(label, read.size, Buffer.byteLength(read.text, "utf8")) : undefined) });
    }
    return found;
  }

  private async ruleOf(folder: string): Promise<string | undefined> {
    for (const name of RULE_FILES) {
      const file = path.join(folder, name);
      if (await present(file)) return file;
    }
    return undefined;
  }
}
