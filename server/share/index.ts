/**
 * Share links (SPEC §13). Creating and revoking one is the session module's
 * (`Session.share` / `Session.unshare`); this module is what a link gives access to.
 *   ShareView  — anonymous, read-only reads by share id (no actor)
 *   ShareLive  — the live events of a share link, for its SSE route
 *   ShareLinks — the team's list of shared links, for members
 */
export * as ShareView from "./share-view";
export * as ShareLive from "./live";
export * as ShareLinks from "./links";
export * as ShareEvent from "./events";
