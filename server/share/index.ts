/**
 * Share links. Creating and revoking one is the session module's (`Session.share` /
 * `Session.unshare`); this module is what a link gives access to.
 *   ShareView  — anonymous, read-only reads by share id (no actor)
 *   ShareLinks — the team's list of shared links, for members
 *   ShareEvent — `share.revoked`, the end of a link's live stream (server/live/viewer.ts)
 */
export * as ShareView from "./share-view";
export * as ShareLinks from "./links";
export * as ShareEvent from "./events";
