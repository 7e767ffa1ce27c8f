import { LimitExceeded } from '../errors';

const WINDOW_MS = 60_000;

/** A fixed one-minute window per caller. Small, in memory, and enough for one machine. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  check(subject: string, now = Date.now()): void {
    if (this.perMinute <= 0) return;
    let window = this.windows.get(subject);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.windows.set(subject, window);
      if (this.windows.size > 10_000) this.prune(now);
    }
    window.count += 1;
    if (window.count > this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
      throw new LimitExceeded(`Rate limit exceeded (${this.perMinute} requests per minute)`, retryAfter);
    }
  }

  private prune(now: number): void {
    for (const [subject, window] of this.windows) {
      if (now - window.start >= WINDOW_MS) this.windows.delete(subject);
    }
  }
}
