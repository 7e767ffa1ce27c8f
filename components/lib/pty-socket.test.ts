import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeControl, encodeData, exitCodeFromReason, PtySocket, type SocketLike } from './pty-socket';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

class FakeSocket implements SocketLike {
  binaryType = 'blob';
  readyState = 0;
  onopen: SocketLike['onopen'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onclose: SocketLike['onclose'] = null;
  onerror: SocketLike['onerror'] = null;
  sent: Uint8Array[] = [];
  constructor(readonly url: string) {}
  send(data: Uint8Array) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  serverSends(frame: Uint8Array) {
    const copy = frame.slice();
    this.onmessage?.({ data: copy.buffer });
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

function harness(startOffset = 0) {
  const sockets: FakeSocket[] = [];
  const timers: (() => void)[] = [];
  const output: string[] = [];
  const statuses: string[] = [];
  const exits: number[] = [];
  const gaps: number[] = [];
  let exists = true;
  const pty = new PtySocket({
    url: (offset) => `ws://host/connect?offset=${offset}`,
    startOffset,
    onData: (data) => output.push(text(data)),
    onStatus: (status) => statuses.push(status),
    onExit: (code) => exits.push(code),
    onGap: (lost) => gaps.push(lost),
    sessionExists: async () => exists,
    createSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    setTimer: (callback) => timers.push(callback),
    clearTimer: () => undefined,
  });
  return {
    pty,
    sockets,
    output,
    statuses,
    exits,
    gaps,
    runTimers: () => timers.splice(0).forEach((t) => t()),
    setExists: (value: boolean) => (exists = value),
  };
}

describe('frames', () => {
  it('round-trips terminal bytes and control messages with their type byte', () => {
    const data = encodeData(bytes('ls\r'));
    expect(data[0]).toBe(0);
    expect(decodeFrame(data)).toEqual({ kind: 'data', bytes: bytes('ls\r') });
    const control = encodeControl({ type: 'resize', cols: 120, rows: 40 });
    expect(control[0]).toBe(1);
    expect(decodeFrame(control)).toEqual({ kind: 'control', message: { type: 'resize', cols: 120, rows: 40 } });
  });

  it('ignores empty, unknown and malformed frames', () => {
    expect(decodeFrame(new Uint8Array())).toBeNull();
    expect(decodeFrame(new Uint8Array([7, 1, 2]))).toBeNull();
    expect(decodeFrame(new Uint8Array([1, 123]))).toBeNull();
  });

  it('reads exit codes from close reasons', () => {
    expect(exitCodeFromReason('{"exitCode":3}')).toBe(3);
    expect(exitCodeFromReason('client closed')).toBeNull();
  });
});

describe('PtySocket', () => {
  it('shows output and resumes from the received offset after a dropped connection', () => {
    const h = harness();
    h.pty.connect();
    expect(h.sockets[0].url).toContain('offset=0');
    h.sockets[0].open();
    h.sockets[0].serverSends(encodeControl({ type: 'hello', offset: 0 }));
    h.sockets[0].serverSends(encodeData(bytes('$ ')));
    h.sockets[0].serverSends(encodeData(bytes('hello\r\n')));
    expect(h.pty.offset).toBe(9);
    h.sockets[0].drop();
    expect(h.statuses).toContain('reconnecting');
    h.runTimers();
    expect(h.sockets[1].url).toContain('offset=9');
    h.sockets[1].open();
    h.sockets[1].serverSends(encodeControl({ type: 'hello', offset: 9 }));
    h.sockets[1].serverSends(encodeData(bytes('more')));
    expect(h.output.join('')).toBe('$ hello\r\nmore');
    expect(h.gaps).toEqual([]);
  });

  it('reports output the server no longer had when resuming', () => {
    const h = harness();
    h.pty.connect();
    h.sockets[0].open();
    h.sockets[0].serverSends(encodeControl({ type: 'hello', offset: 0 }));
    h.sockets[0].serverSends(encodeData(bytes('abc')));
    h.sockets[0].drop();
    h.runTimers();
    h.sockets[1].open();
    h.sockets[1].serverSends(encodeControl({ type: 'hello', offset: 100 }));
    expect(h.gaps).toEqual([97]);
    expect(h.pty.offset).toBe(100);
  });

  it('sends keystrokes as data frames and the size as a control frame, also after reconnecting', () => {
    const h = harness();
    h.pty.resize(100, 30);
    h.pty.connect();
    h.pty.send('typed early');
    h.sockets[0].open();
    expect(decodeFrame(h.sockets[0].sent[0])).toEqual({
      kind: 'control',
      message: { type: 'resize', cols: 100, rows: 30 },
    });
    expect(text((decodeFrame(h.sockets[0].sent[1]) as { bytes: Uint8Array }).bytes)).toBe('typed early');
    h.pty.send('x');
    expect(h.sockets[0].sent[2]).toEqual(encodeData(bytes('x')));
    h.sockets[0].drop();
    h.runTimers();
    h.sockets[1].open();
    expect(decodeFrame(h.sockets[1].sent[0])).toEqual({
      kind: 'control',
      message: { type: 'resize', cols: 100, rows: 30 },
    });
  });

  it('stops on exit and never reconnects', () => {
    const h = harness();
    h.pty.connect();
    h.sockets[0].open();
    h.sockets[0].serverSends(encodeControl({ type: 'exit', exitCode: 2 }));
    h.sockets[0].drop(1011, '{"exitCode":2}');
    h.runTimers();
    expect(h.exits).toEqual([2]);
    expect(h.sockets).toHaveLength(1);
    expect(h.statuses).toContain('exited');
  });

  it('gives up when the session no longer exists', async () => {
    const h = harness();
    h.setExists(false);
    h.pty.connect();
    for (let i = 0; i < 3; i++) {
      h.sockets[h.sockets.length - 1].drop();
      await Promise.resolve();
      await Promise.resolve();
      h.runTimers();
    }
    expect(h.statuses.at(-1)).toBe('closed');
    const count = h.sockets.length;
    h.runTimers();
    expect(h.sockets.length).toBe(count);
  });

  it('splits large pastes into frames the server accepts', () => {
    const h = harness();
    h.pty.connect();
    h.sockets[0].open();
    h.pty.send('y'.repeat(100_000));
    expect(h.sockets[0].sent.length).toBe(4);
    expect(h.sockets[0].sent.every((frame) => frame.length <= 32 * 1024 + 1)).toBe(true);
  });
});
