/**
 * Sign-in attempts per account, whatever address they come from: the per-address limit
 * (better-auth's) stops one client, this stops many clients guessing one password. Kept
 * in memory like better-auth's own counters (one count per instance).
 */
export interface AccountLimit {
  /** Attempts allowed per account within `windowMs`. */
  max: number;
  windowMs: number;
}

export const ACCOUNT_LIMIT: AccountLimit = { max: 10, windowMs: 5 * 60_000 };

/** The most accounts tracked at once; the oldest are forgotten first. */
const MAX_ACCOUNTS = 100_000;

export class AccountAttempts {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly limit: AccountLimit = ACCOUNT_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts an attempt for `account` and says whether it may go ahead; when not, how many
   * seconds until it may. A refused attempt is not counted.
   */
  attempt(account: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const key = account.trim().toLowerCase();
    const now = this.now();
    const recent = (this.attempts.get(key) ?? []).filter((at) => now - at < this.limit.windowMs);
    if (recent.length >= this.limit.max) {
      this.attempts.set(key, recent);
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((recent[0]! + this.limit.windowMs - now) / 1000)) };
    }
    recent.push(now);
    this.attempts.delete(key);
    this.attempts.set(key, recent);
    if (this.attempts.size > MAX_ACCOUNTS) {
      const oldest = this.attempts.keys().next();
      if (!oldest.done) this.attempts.delete(oldest.value);
    }
    return { allowed: true };
  }
}
