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
