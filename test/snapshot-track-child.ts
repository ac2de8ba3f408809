import { Snapshots } from "../server/snapshot/snapshot";

/** Takes one snapshot, for the crash test (server/snapshot/snapshot.test.ts kills it part-way). */
const [root, id, directory] = process.argv.slice(2);
if (!root || !id || !directory) throw new Error("usage: track-child <root> <projectId> <directory>");
await new Snapshots({ root, maxFileBytes: 1024 }).track({ id, directory });
