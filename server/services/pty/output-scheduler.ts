export interface SchedulerClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: SchedulerClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface SchedulerOptions {
  /** Output is held at most this long so that bursts leave in one frame. */
  windowMs: number;
  /** Pending output of this size is sent at once. */
  maxBytes: number;
  /** Output arriving this soon after input is sent at once: keystroke echo is never held. */
  echoWindowMs: number;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = { windowMs: 10, maxBytes: 64 * 1024, echoWindowMs: 250 };

/**
 * Decides when terminal output is sent: coalesced into one frame per window (or per maxBytes)
 * so frame-by-frame readers see whole lines, except right after input, when the first output
 * (the echo) goes out immediately.
 */
export class OutputScheduler {
  private pending = 0;
  private timer: unknown = null;
  private echoUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly flush: () => void,
    private readonly options: SchedulerOptions = DEFAULT_SCHEDULER_OPTIONS,
    private readonly clock: SchedulerClock = realClock,
  ) {}

  /** Bytes waiting for the next flush. */
  get pendingBytes(): number {
    return this.pending;
  }

  /** The client typed something: the next output is its echo. */
  inputSent(): void {
    this.echoUntil = this.clock.now() + this.options.echoWindowMs;
  }

  push(bytes: number): void {
    if (bytes <= 0) return;
    this.pending += bytes;
    if (this.pending >= this.options.maxBytes || this.clock.now() <= this.echoUntil) {
      this.echoUntil = Number.NEGATIVE_INFINITY;
      this.flushNow();
      return;
    }
    this.timer ??= this.clock.setTimeout(() => {
      this.timer = null;
      this.flushNow();
    }, this.options.windowMs);
  }

  flushNow(): void {
    if (this.timer !== null) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending === 0) return;
    this.pending = 0;
    this.flush();
  }

  dispose(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.pending = 0;
  }
}
