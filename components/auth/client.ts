"use client";

import { organizationClient } from "better-auth/client/plugins";
import { createAuthClient } from "better-auth/react";

/** better-auth in the browser: sign-up, sign-in, sign-out, teams and invitations (same origin, /api/auth). */
export const authClient = createAuthClient({ plugins: [organizationClient()] });

export { authErrorMessage, reloadTo } from "./reload";
