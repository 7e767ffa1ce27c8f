import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TtyProcess } from '../../runtime/types';
import { HIGH_WATERMARK, LOW_WATERMARK, PtySessionHandle, type PtySocket } from './session';

class FakeSocket implements PtySocket {
  readyState = 1;
  bufferedAmount = 0;
  readonly frames: Buffer[] = [];
  readonly callbacks: ((error?: Error) => void)[] = [];
  closed: { code?: number; reason?: string } | null = null;
  send(data: Buffer, _options: { binary: boolean }, callback?: (error?: Error) => void): void {
    this.frames.push(data);
    if (callback) this.callbacks.push(callback);
  }
  close(code?: number, reason?: string): void {
    this.closed = { code, reason };
    this.readyState = 3;
  }
  output(framed = false): string {
    return Buffer.concat(
      this.frames.filter((frame) => !framed || frame[0] === 0).map((frame) => (framed ? frame.subarray(1) : frame)),
    ).toString();
  }
  controls(): Record<string, unknown>[] {
    return this.frames.filter((frame) => frame[0] === 1).map((frame) => JSON.parse(frame.subarray(1).toString()));
  }
  drain(): void {
    this.bufferedAmount = 0;
    for (const callback of this.callbacks.splice(0)) callback();
  }
}

class FakeTty {
  readonly input: Buffer[] = [];
  readonly resizes: [number, number][] = [];
  paused = false;
  exit = 0;
  readonly stream = new Duplex({
    read: () => undefined,
    write: (chunk: Buffer, _encoding, callback) => {
      this.input.push(chunk);
      callback();
    },
  });
  constructor() {
    const pause = this.stream.pause.bind(this.stream);
    const resume = this.stream.resume.bind(this.stream);
    this.stream.pause = () => {
      this.paused = true;
      return pause();
    };
    this.stream.resume = () => {
      this.paused = false;
      return resume();
    };
  }
  output(text: string | Buffer): void {
    this.stream.push(typeof text === 'string' ? Buffer.from(text) : text);
  }
  process(): TtyProcess {
    return {
      stream: this.stream,
      resize: async (cols, rows) => void this.resizes.push([cols, rows]),
      exitCode: async () => this.exit,
    };
  }
}

const tick = (ms = 25) => new Promise((resolve) => setTimeout(resolve, ms));

function makeSession(tty: FakeTty, overrides: { lazyStart?: boolean } = {}) {
  const opened: [number, number][] = [];
  const signals: string[] = [];
  const session = new PtySessionHandle({
    id: 'main',
    sandboxId: 'sbx-test',
    cwd: '/workspace',
    envs: { TERM: 'xterm-256color' },
    cols: 80,
    rows: 24,
    lazyStart: overrides.lazyStart ?? false,
    createdAt: new Date().toISOString(),
    open: async (cols, rows) => {
      opened.push([cols, rows]);
      return tty.process();
    },
    signal: async (signal) => {
      signals.push(signal);
      tty.exit = 129;
      tty.stream.push(null);
    },
    onActivity: () => undefined,
  });
  return { session, opened, signals };
}

describe('PtySessionHandle', () => {
  it('fans output out to every attached client and forwards input', async () => {
    const tty = new FakeTty();
    const { session } = makeSession(tty);
    await session.start();
    const a = new FakeSocket();
    const b = new FakeSocket();
    session.attach(a, { framed: false, replay: true });
    session.attach(b, { framed: true, replay: true });
    tty.output('hello ');
    tty.output('world');
    await tick();
    expect(a.output()).toBe('hello world');
    expect(b.output(true)).toBe('hello world');
    session.input(Buffer.from('ls\r'));
    expect(Buffer.concat(tty.input).toString()).toBe('ls\r');
  });

  it('replays buffered output on attach unless replay is off', async () => {
    const tty = new FakeTty();
    const { session } = makeSession(tty);
    await session.start();
    tty.output('$ prompt');
    await tick();
    const replayed = new FakeSocket();
    const live = new FakeSocket();
    session.attach(replayed, { framed: false, replay: true });
    session.attach(live, { framed: false, replay: false });
    tty.output(' more');
    await tick();
    expect(replayed.output()).toBe('$ prompt more');
    expect(live.output()).toBe(' more');
  });

  it('says hello with the offset and resumes exactly at a requested offset', async () => {
    const tty = new FakeTty();
    const { session } = makeSession(tty);
    await session.start();
    tty.output('0123456789');
    await tick();
    const first = new FakeSocket();
    session.attach(first, { framed: true, replay: true });
    expect(first.controls()[0]).toEqual({ type: 'hello', offset: 0, lost: 0, cols: 80, rows: 24 });
    const resumed = new FakeSocket();
    session.attach(resumed, { framed: true, offset: 4, replay: true });
    tty.output('abc');
    await tick();
    expect(resumed.controls()[0]).toMatchObject({ type: 'hello', offset: 4, lost: 0 });
    expect(resumed.output(true)).toBe('456789abc');
    expect(first.output(true)).toBe('0123456789abc');
  });

  it('pauses the shell output while a client lags and resumes once it drains', async () => {
    const tty = new FakeTty();
    const { session } = makeSession(tty);
    await session.start();
    const slow = new FakeSocket();
    session.attach(slow, { framed: false, replay: false });
    slow.bufferedAmount = HIGH_WATERMARK + 1;
    tty.output(Buffer.alloc(70 * 1024, 0x79));
    await tick();
    expect(tty.paused).toBe(true);
    expect(slow.callbacks.length).toBeGreaterThan(1);
    slow.bufferedAmount = LOW_WATERMARK + 1;
    slow.callbacks.shift()!();
    expect(tty.paused).toBe(true);
    slow.drain();
    expect(tty.paused).toBe(false);
  });

  it('closes with the exit code when the shell exits: 1000 for 0, 1011 otherwise', async () => {
    for (const exit of [0, 2]) {
      const tty = new FakeTty();
      tty.exit = exit;
      const { session } = makeSession(tty);
      await session.start();
      const raw = new FakeSocket();
      const framed = new FakeSocket();
      session.attach(raw, { framed: false, replay: true });
      session.attach(framed, { framed: true, replay: true });
      tty.output('bye');
      tty.stream.push(null);
      await session.exited;
      expect(raw.output()).toBe('bye');
      expect(raw.closed).toEqual({ code: exit === 0 ? 1000 : 1011, reason: JSON.stringify({ exitCode: exit }) });
      expect(framed.controls().at(-1)).toEqual({ type: 'exit', exitCode: exit });
      expect(session.view()).toMatchObject({ active: false, exit_code: exit });
    }
  });

  it('starts a lazy session with the size stored by a resize before the start', async () => {
    const tty = new FakeTty();
    const { session, opened } = makeSession(tty, { lazyStart: true });
    expect(session.view().active).toBe(false);
    await session.resize(132, 43);
    expect(opened).toEqual([]);
    await session.start();
    expect(opened).toEqual([[132, 43]]);
    expect(session.view()).toMatchObject({ active: true, cols: 132, rows: 43 });
    await session.resize(100, 30);
    expect(tty.resizes).toEqual([[100, 30]]);
  });

  it('hangs up the shell and closes clients with 1001 when deleted', async () => {
    const tty = new FakeTty();
    const { session, signals } = makeSession(tty);
    await session.start();
    const client = new FakeSocket();
    session.attach(client, { framed: false, replay: true });
    await session.kill();
    expect(signals).toEqual(['HUP']);
    expect(client.closed?.code).toBe(1001);
    expect(session.active).toBe(false);
  });
});
