export interface AuthThrottleOptions {
  /** Delay before answering the first failure; it doubles with each further one. */
  baseMs?: number;
  maxDelayMs?: number;
  /** An address with no failure for this long starts again from the base delay. */
  forgetAfterMs?: number;
  /** Failures that would wait longer than this are not answered at all: the connection is dropped. */
  maxWaitMs?: number;
  now?: () => number;
}

interface Entry {
  failures: number;
  /** When the latest failure answer for this address is (or was) sent. */
  answerAt: number;
  lastFailureAt: number;
}

/**
 * Slows down password guessing: every failed login from an address is answered only after a
 * delay that doubles with each failure (250 ms, 500 ms, 1 s … up to 10 s), and failures from
 * one address are answered one after another, so parallel connections do not multiply the
 * rate. Successful logins are answered at once and do not reset the count (a valid credential
 * must not buy more guesses against other ids).
 */
export class AuthThrottle {
  private readonly entries = new Map<string, Entry>();
  private readonly baseMs: number;
  private readonly maxDelayMs: number;
  private readonly forgetAfterMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(options: AuthThrottleOptions = {}) {
    this.baseMs = options.baseMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
    this.forgetAfterMs = options.forgetAfterMs ?? 15 * 60_000;
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Records a failed login from `address`. Returns the milliseconds to wait before answering,
   * or null when the answer would be so late that the connection should just be closed.
   */
  failure(address: string): number | null {
    const now = this.now();
    this.prune(now);
    let entry = this.entries.get(address);
    if (!entry || now - entry.lastFailureAt > this.forgetAfterMs) {
      entry = { failures: 0, answerAt: now, lastFailureAt: now };
      this.entries.set(address, entry);
    }
    entry.failures += 1;
    entry.lastFailureAt = now;
    const delay = Math.min(this.baseMs * 2 ** Math.min(entry.failures - 1, 30), this.maxDelayMs);
    const answerAt = Math.max(now, entry.answerAt) + delay;
    if (answerAt - now > this.maxWaitMs) return null;
    entry.answerAt = answerAt;
    return answerAt - now;
  }

  /** Failures currently counted for an address (for logs and tests). */
  failures(address: string): number {
    const entry = this.entries.get(address);
    return entry && this.now() - entry.lastFailureAt <= this.forgetAfterMs ? entry.failures : 0;
  }

  private prune(now: number): void {
    if (this.entries.size < 10_000) return;
    for (const [address, entry] of this.entries) {
      if (now - entry.lastFailureAt > this.forgetAfterMs && entry.answerAt <= now) this.entries.delete(address);
    }
  }
}
