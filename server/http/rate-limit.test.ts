import { describe, expect, it } from 'vitest';
import { LimitExceeded } from '../errors';
import { RateLimiter } from './rate-limit';

describe('RateLimiter', () => {
  it('allows the limit, refuses the next call with a Retry-After, and opens again after the window', () => {
    const limiter = new RateLimiter(3);
    const start = 1_000_000;
    for (let i = 0; i < 3; i++) limiter.check('key-a', start);
    let error: unknown;
    try {
      limiter.check('key-a', start + 15_000);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LimitExceeded);
    expect((error as LimitExceeded).retryAfterSeconds).toBe(45);
    expect(() => limiter.check('key-b', start)).not.toThrow();
    expect(() => limiter.check('key-a', start + 60_000)).not.toThrow();
  });
});
