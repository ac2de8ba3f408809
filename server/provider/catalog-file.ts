import { readFileSync, statSync } from "node:fs";
import { describeIssues } from "../fn";
import { ModelOverrides } from "./models";
import { logger } from "../log";

const log = logger("provider");

/**
 * The operator's catalog file (`providers.catalog`): model entries in the shape of the
 * configuration's `models` — "provider/model" → {name, limit, cost, reasoning, images} —
 * that update bundled entries field by field or add models (a new Claude, a model of an
 * OpenRouter account). It is read again whenever its modification time changes, so a new
 * price or model needs no release and no restart. A file that cannot be read or is not
 * valid keeps the entries last read, and says why once per version of the file.
 */
export class CatalogFile {
  private entries: ModelOverrides = {};
  private seen: number | undefined;

  constructor(private readonly file: string | undefined) {}

  /** The file's entries as they are now (none without a file). */
  read(): ModelOverrides {
    if (!this.file) return this.entries;
    let mtime: number;
    try {
      mtime = statSync(/*turbopackIgnore: true*/ this.file).mtimeMs;
    } catch (error) {
      return this.failed(-1, `cannot be read: ${(error as Error).message}`);
    }
    if (mtime === this.seen) return this.entries;
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(/*turbopackIgnore: true*/ this.file, "utf8"));
    } catch (error) {
      return this.failed(mtime, `is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = ModelOverrides.safeParse(json);
    if (!parsed.success) return this.failed(mtime, `is not a valid catalog: ${describeIssues(parsed.error.issues, "(root)")}`);
    this.seen = mtime;
    this.entries = parsed.data;
    return this.entries;
  }

  private failed(mtime: number, why: string): ModelOverrides {
    if (this.seen !== mtime) log.warn(`the catalog file ${this.file} ${why}; the entries last read stay in use`);
    this.seen = mtime;
    return this.entries;
  }
}

/** Bundled catalog < catalog file < the configuration's `models`. */
export function mergedOverrides(file: CatalogFile, configured: ModelOverrides | undefined): ModelOverrides {
  const fromFile = file.read();
  if (!configured) return fromFile;
  const out: ModelOverrides = { ...fromFile };
  for (const [ref, entry] of Object.entries(configured)) {
    const base = out[ref];
    out[ref] = base ? { ...base, ...entry, ...(base.limit || entry.limit ? { limit: { ...base.limit, ...entry.limit } } : {}), ...(base.cost || entry.cost ? { cost: { ...base.cost, ...entry.cost } } : {}) } : entry;
  }
  return out;
}
