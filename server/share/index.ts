/**
 * Share links. Creating and revoking one is the session module's (`Session.share` /
 * `Session.unshare`); this module is what a link gives access to.
 *   ShareView  — anonymous, read-only reads by share id (no actor): shared-session.ts
 *   ShareRedaction — what such a viewer may see of a session, message, part or diff: redaction.ts
 *   ShareLinks — the team's list of shared links, for members
 *   ShareEvent — `share.revoked`, the end of a link's live stream (server/live/viewer.ts)
 */
export * as ShareView from "./shared-session";
export * as ShareRedaction from "./redaction";
export * as ShareLinks from "./links";
export * as ShareEvent from "./events";
