/** Names of the built-in offline model, shared by the catalog and the model itself. */
export const OFFLINE_PROVIDER_ID = "offline";
export const OFFLINE_MODEL_ID = "parley-offline";
/** How the UI labels the offline model, so nobody mistakes it for a real one. */
export const OFFLINE_LABEL = "Offline model (built in, no network)";
