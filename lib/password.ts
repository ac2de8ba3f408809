/** The password rule, one source for the server (server/auth/auth.ts) and the sign-up form that states it. */
export const PASSWORD_LENGTH = { min: 8, max: 128 } as const;

/** The rule as the sign-up form shows it beside the password field. */
export const PASSWORD_RULE = `At least ${PASSWORD_LENGTH.min} characters (up to ${PASSWORD_LENGTH.max}).`;
