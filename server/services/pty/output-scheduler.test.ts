import { describe, expect, it } from 'vitest';
import { OutputScheduler, type SchedulerClock } from './output-scheduler';

function fakeClock() {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const clock: SchedulerClock = {
    now: () => now,
    setTimeout: (callback, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, callback });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, timer] of [...timers]) {
      if (timer.at <= now) {
        timers.delete(id);
        timer.callback();
      }
    }
  };
  return { clock, advance, pendingTimers: () => timers.size };
}

describe('OutputScheduler', () => {
  const options = { windowMs: 10, maxBytes: 1000, echoWindowMs: 250 };

  it('coalesces output arriving within one window into one flush', () => {
    const { clock, advance } = fakeClock();
    let flushes = 0;
    const scheduler = new OutputScheduler(() => flushes++, options, clock);
    scheduler.push(10);
    advance(3);
    scheduler.push(10);
    advance(3);
    scheduler.push(10);
    expect(flushes).toBe(0);
    advance(4);
    expect(flushes).toBe(1);
    expect(scheduler.pendingBytes).toBe(0);
  });

  it('flushes at once when the pending output reaches maxBytes', () => {
    const { clock, advance, pendingTimers } = fakeClock();
    let flushes = 0;
    const scheduler = new OutputScheduler(() => flushes++, options, clock);
    scheduler.push(600);
    scheduler.push(600);
    expect(flushes).toBe(1);
    expect(pendingTimers()).toBe(0);
    advance(20);
    expect(flushes).toBe(1);
  });

  it('sends the first output after input at once (the echo), then coalesces again', () => {
    const { clock, advance } = fakeClock();
    let flushes = 0;
    const scheduler = new OutputScheduler(() => flushes++, options, clock);
    scheduler.inputSent();
    advance(1);
    scheduler.push(1);
    expect(flushes).toBe(1);
    scheduler.push(5);
    expect(flushes).toBe(1);
    advance(10);
    expect(flushes).toBe(2);
  });

  it('stops treating output as echo once the echo window has passed', () => {
    const { clock, advance } = fakeClock();
    let flushes = 0;
    const scheduler = new OutputScheduler(() => flushes++, options, clock);
    scheduler.inputSent();
    advance(300);
    scheduler.push(1);
    expect(flushes).toBe(0);
    advance(10);
    expect(flushes).toBe(1);
  });

  it('does nothing after dispose', () => {
    const { clock, advance } = fakeClock();
    let flushes = 0;
    const scheduler = new OutputScheduler(() => flushes++, options, clock);
    scheduler.push(5);
    scheduler.dispose();
    advance(50);
    expect(flushes).toBe(0);
  });
});
