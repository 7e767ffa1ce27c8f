import { describe, expect, it } from 'vitest';
import { AuthThrottle } from './auth-throttle';

describe('AuthThrottle', () => {
  it('doubles the delay with each failure from one address, up to the cap', () => {
    let now = 0;
    const throttle = new AuthThrottle({ baseMs: 250, maxDelayMs: 2000, maxWaitMs: 1e9, now: () => now });
    const delays: (number | null)[] = [];
    for (let i = 0; i < 6; i++) {
      delays.push(throttle.failure('10.0.0.1'));
      now += 60_000; // answered long ago: only the growing delay counts
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 2000, 2000]);
    expect(throttle.failures('10.0.0.1')).toBe(6);
  });

  it('keeps addresses apart', () => {
    const throttle = new AuthThrottle({ baseMs: 100, now: () => 0 });
    expect(throttle.failure('10.0.0.1')).toBe(100);
    expect(throttle.failure('10.0.0.1')).toBe(300); // queued after the first answer
    expect(throttle.failure('10.0.0.2')).toBe(100);
  });

  it('answers parallel failures from one address one after another', () => {
    const throttle = new AuthThrottle({ baseMs: 100, maxDelayMs: 10_000, now: () => 0 });
    // Four connections failing at the same instant: 100, +200, +400, +800.
    expect([1, 2, 3, 4].map(() => throttle.failure('10.0.0.9'))).toEqual([100, 300, 700, 1500]);
  });

  it('drops instead of answering when the answer would wait too long', () => {
    const throttle = new AuthThrottle({ baseMs: 1000, maxDelayMs: 10_000, maxWaitMs: 5000, now: () => 0 });
    expect(throttle.failure('10.0.0.3')).toBe(1000);
    expect(throttle.failure('10.0.0.3')).toBe(3000);
    expect(throttle.failure('10.0.0.3')).toBeNull();
  });

  it('forgets an address after a quiet period', () => {
    let now = 0;
    const throttle = new AuthThrottle({ baseMs: 250, forgetAfterMs: 60_000, now: () => now });
    throttle.failure('10.0.0.4');
    now += 1000;
    expect(throttle.failure('10.0.0.4')).toBe(500);
    now += 61_000;
    expect(throttle.failures('10.0.0.4')).toBe(0);
    expect(throttle.failure('10.0.0.4')).toBe(250);
  });
});
