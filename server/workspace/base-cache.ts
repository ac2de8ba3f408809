/**
 * What `Workspaces.baseFiles` reads of a base commit, kept in memory: its listings (keyed by
 * store, commit and folders) and its files' contents (keyed by store and object id). A
 * commit and an object never change, so nothing here goes stale; the cache is bounded by
 * entries and bytes (the oldest go first), and a listing or file too large to keep is
 * read again each time.
 */
const MAX_LISTINGS = 64;
const MAX_LISTING_ENTRIES = 5_000;
const MAX_BLOB_BYTES = 256 * 1024;
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;

export class BaseCache {
  private readonly listings = new Map<string, string[]>();
  private readonly blobs = new Map<string, Buffer>();
  private bytes = 0;

  async listing(key: string, read: () => Promise<string[]>): Promise<string[]> {
    const kept = this.listings.get(key);
    if (kept) return kept;
    const listed = await read();
    if (listed.length <= MAX_LISTING_ENTRIES) {
      if (this.listings.size >= MAX_LISTINGS) this.listings.delete(this.listings.keys().next().value ?? "");
      this.listings.set(key, listed);
    }
    return listed;
  }

  async blob(key: string, read: () => Promise<Buffer>): Promise<Buffer> {
    const kept = this.blobs.get(key);
    if (kept) return kept;
    const data = await read();
    if (data.length <= MAX_BLOB_BYTES && !this.blobs.has(key)) {
      this.blobs.set(key, data);
      this.bytes += data.length;
      for (const [oldest, value] of this.blobs) {
        if (this.bytes <= MAX_TOTAL_BYTES) break;
        this.blobs.delete(oldest);
        this.bytes -= value.length;
      }
    }
    return data;
  }
}

/** Base folders kept made (BaseFolders): the steps of new sessions of a few projects and commits. */
const MAX_FOLDERS = 16;

interface KeptFolder {
  dir: Promise<string>;
  /** Readers using it now: it is removed only at 0. */
  users: number;
}

/**
 * Folders holding chosen files of a base commit (`Workspaces.baseFiles`), made once and
 * shared: the steps of new sessions read their rule and agent files from the same folder
 * instead of each writing, reading and removing one. A folder is keyed by what it holds
 * (each file's path, mode and object id), so it never goes stale and readers never change
 * it; at most MAX_FOLDERS are kept (the least recently used go first), and one is removed
 * only once no reader uses it. A server that stops leaves its kept folders in the project's
 * folder (a few small files each), as it would a folder of a read it was killed in.
 */
export class BaseFolders {
  private readonly kept = new Map<string, KeptFolder>();

  /** The folder of `key`, made by `make` when none is kept; `release` when done reading it. */
  async use(key: string, make: () => Promise<string>, remove: (dir: string) => Promise<void>): Promise<{ dir: string; release: () => Promise<void> }> {
    let entry = this.kept.get(key);
    if (entry) {
      // The most recently used last.
      this.kept.delete(key);
      this.kept.set(key, entry);
    } else {
      const made: KeptFolder = { dir: make(), users: 0 };
      this.kept.set(key, made);
      // A folder that could not be made is not kept (make removes what it began).
      made.dir.catch(() => {
        if (this.kept.get(key) === made) this.kept.delete(key);
      });
      entry = made;
    }
    const used = entry;
    used.users++;
    let dir: string;
    try {
      dir = await used.dir;
    } catch (error) {
      used.users--;
      throw error;
    }
    let released = false;
    return {
      dir,
      release: async () => {
        if (released) return;
        released = true;
        used.users--;
        await this.trim(remove);
      },
    };
  }

  /** Folders beyond MAX_FOLDERS that no reader uses, removed (the least recently used first). */
  private async trim(remove: (dir: string) => Promise<void>): Promise<void> {
    const unused: string[] = [];
    for (const [key, entry] of this.kept) {
      if (this.kept.size <= MAX_FOLDERS) break;
      if (entry.users > 0) continue;
      this.kept.delete(key);
      unused.push(await entry.dir);
    }
    await Promise.all(unused.map((dir) => remove(dir)));
  }
}

/**
 * What a reader read of folders that never change (BaseFolders', by key: the same key, the
 * same files), kept so the next step reads nothing: at most `max` (the oldest go first); a
 * failed read is not kept.
 */
export class FixedReads<T> {
  private readonly kept = new Map<string, Promise<T>>();
  constructor(private readonly max = 64) {}

  get(key: string, read: () => Promise<T>): Promise<T> {
    const kept = this.kept.get(key);
    if (kept) return kept;
    if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value ?? "");
    const reading = read();
    this.kept.set(key, reading);
    reading.catch(() => {
      if (this.kept.get(key) === reading) this.kept.delete(key);
    });
    return reading;
  }
}
