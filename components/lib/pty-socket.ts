/**
 * The browser side of the framed terminal protocol `shoal.pty.v1` (docs/API.md):
 * every binary frame starts with a type byte, 0 = terminal bytes, 1 = a JSON control message.
 * The server opens with `{"type":"hello","offset":N}` (the stream offset of the next output
 * byte) and ends with `{"type":"exit","exitCode":N}`. The client counts the bytes it has
 * received; after a dropped connection it reconnects with `?offset=<that count>` and the
 * server resumes exactly there, so nothing is lost or shown twice.
 */
export const PTY_SUBPROTOCOL = 'shoal.pty.v1';

const FRAME_DATA = 0;
const FRAME_CONTROL = 1;
/** The server refuses input frames over 64 KiB; stay well below. */
const MAX_INPUT_FRAME = 32 * 1024;
/** Input typed while disconnected is kept up to this size and sent on reconnect. */
const MAX_PENDING_INPUT = 64 * 1024;

export type ControlMessage =
  | { type: 'hello'; offset: number; lost?: number }
  | { type: 'exit'; exitCode: number }
  | { type: 'resize'; cols: number; rows: number }
  | { type: string; [key: string]: unknown };

export type Frame = { kind: 'data'; bytes: Uint8Array } | { kind: 'control'; message: ControlMessage };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeData(bytes: Uint8Array): Uint8Array {
  const frame = new Uint8Array(bytes.length + 1);
  frame[0] = FRAME_DATA;
  frame.set(bytes, 1);
  return frame;
}

export function encodeControl(message: ControlMessage): Uint8Array {
  const body = encoder.encode(JSON.stringify(message));
  const frame = new Uint8Array(body.length + 1);
  frame[0] = FRAME_CONTROL;
  frame.set(body, 1);
  return frame;
}

/** Null for an empty frame, an unknown type or unparsable JSON (ignored, never fatal). */
export function decodeFrame(data: ArrayBuffer | Uint8Array): Frame | null {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length === 0) return null;
  if (bytes[0] === FRAME_DATA) return { kind: 'data', bytes: bytes.subarray(1) };
  if (bytes[0] !== FRAME_CONTROL) return null;
  try {
    const message = JSON.parse(decoder.decode(bytes.subarray(1))) as ControlMessage;
    return message && typeof message.type === 'string' ? { kind: 'control', message } : null;
  } catch {
    return null;
  }
}

export type PtyStatus = 'connecting' | 'open' | 'reconnecting' | 'exited' | 'closed';

/** The subset of the DOM WebSocket this class uses (tests pass a fake). */
export interface SocketLike {
  binaryType: string;
  readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
}

export interface PtySocketOptions {
  /** The connect URL for a given resume offset. */
  url: (offset: number) => string;
  /** Where to start: 0 replays everything the server still buffers (a fresh page). */
  startOffset?: number;
  onData: (bytes: Uint8Array) => void;
  onStatus?: (status: PtyStatus, detail?: string) => void;
  onExit?: (exitCode: number) => void;
  /** Output the server no longer had when we resumed (bytes). */
  onGap?: (lostBytes: number) => void;
  /**
   * Asked after repeated failed connects: does the session still exist? false stops retrying
   * (the upgrade answers 404 before any WebSocket exists, which the browser cannot see).
   */
  sessionExists?: () => Promise<boolean>;
  createSocket?: (url: string) => SocketLike;
  /** Delays between reconnect attempts (ms); the last one repeats. */
  retryDelays?: number[];
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

const OPEN = 1;

export class PtySocket {
  private socket: SocketLike | null = null;
  private receivedOffset: number;
  private requestedOffset: number;
  private attempts = 0;
  private failuresWithoutOpen = 0;
  private timer: unknown = null;
  private stopped = false;
  private exited = false;
  private size: { cols: number; rows: number } | null = null;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private resumed = false;

  constructor(private readonly options: PtySocketOptions) {
    this.receivedOffset = options.startOffset ?? 0;
    this.requestedOffset = this.receivedOffset;
  }

  /** The stream offset just after the last byte received. */
  get offset(): number {
    return this.receivedOffset;
  }

  connect(): void {
    if (this.stopped || this.exited) return;
    this.options.onStatus?.(this.attempts === 0 && !this.resumed ? 'connecting' : 'reconnecting');
    this.requestedOffset = this.receivedOffset;
    const create =
      this.options.createSocket ?? ((url: string) => new WebSocket(url, PTY_SUBPROTOCOL) as unknown as SocketLike);
    let socket: SocketLike;
    try {
      socket = create(this.options.url(this.requestedOffset));
    } catch (error) {
      this.options.onStatus?.('closed', (error as Error).message);
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.attempts = 0;
      this.failuresWithoutOpen = 0;
      this.options.onStatus?.('open');
      if (this.size) socket.send(encodeControl({ type: 'resize', ...this.size }));
      this.flushPending();
    };
    socket.onmessage = (event) => this.onMessage(event.data);
    socket.onerror = () => undefined; // a close event always follows
    socket.onclose = (event) => {
      if (this.socket === socket) this.socket = null;
      if (this.stopped || this.exited) return;
      const exitCode = exitCodeFromReason(event.reason);
      if (exitCode !== null) {
        this.finish(exitCode);
        return;
      }
      if (!opened) this.failuresWithoutOpen += 1;
      void this.scheduleReconnect();
    };
  }

  /** Keystrokes or pasted text. */
  send(data: string | Uint8Array): void {
    if (this.exited || this.stopped) return;
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    for (let start = 0; start < bytes.length; start += MAX_INPUT_FRAME) {
      const chunk = bytes.subarray(start, start + MAX_INPUT_FRAME);
      if (this.socket && this.socket.readyState === OPEN) this.socket.send(encodeData(chunk));
      else if (this.pendingBytes + chunk.length <= MAX_PENDING_INPUT) {
        this.pending.push(chunk.slice());
        this.pendingBytes += chunk.length;
      }
    }
  }

  resize(cols: number, rows: number): void {
    if (cols < 1 || rows < 1) return;
    if (this.size && this.size.cols === cols && this.size.rows === rows) return;
    this.size = { cols, rows };
    if (this.socket && this.socket.readyState === OPEN) this.socket.send(encodeControl({ type: 'resize', cols, rows }));
  }

  /** Stops for good (tab closed, page left); the session keeps running on the server. */
  close(): void {
    this.stopped = true;
    if (this.timer !== null) (this.options.clearTimer ?? clearTimeout)(this.timer as never);
    this.timer = null;
    this.socket?.close(1000, 'client closed');
    this.socket = null;
  }

  /** Reconnects at once (e.g. the network came back) instead of waiting for the next retry. */
  reconnectNow(): void {
    if (this.stopped || this.exited || this.socket) return;
    if (this.timer !== null) (this.options.clearTimer ?? clearTimeout)(this.timer as never);
    this.timer = null;
    this.connect();
  }

  private onMessage(data: unknown): void {
    if (typeof data === 'string') {
      // The framed protocol sends binary only; tolerate text as plain output.
      const bytes = encoder.encode(data);
      this.receivedOffset += bytes.length;
      this.options.onData(bytes);
      return;
    }
    const frame = decodeFrame(data as ArrayBuffer);
    if (!frame) return;
    if (frame.kind === 'data') {
      this.receivedOffset += frame.bytes.length;
      this.options.onData(frame.bytes);
      return;
    }
    const message = frame.message;
    if (message.type === 'hello' && typeof message.offset === 'number') {
      const lost = typeof message.lost === 'number' ? message.lost : message.offset - this.requestedOffset;
      if (lost > 0 && this.resumed) this.options.onGap?.(lost);
      this.receivedOffset = message.offset;
      this.resumed = true;
    } else if (message.type === 'exit' && typeof message.exitCode === 'number') {
      this.finish(message.exitCode);
    }
  }

  private finish(exitCode: number): void {
    if (this.exited) return;
    this.exited = true;
    this.options.onStatus?.('exited', `exit code ${exitCode}`);
    this.options.onExit?.(exitCode);
    this.socket?.close(1000, 'exited');
    this.socket = null;
  }

  private async scheduleReconnect(): Promise<void> {
    if (this.failuresWithoutOpen >= 3 && this.options.sessionExists) {
      const exists = await this.options.sessionExists().catch(() => true);
      if (this.stopped || this.exited) return;
      if (!exists) {
        this.stopped = true;
        this.options.onStatus?.('closed', 'the terminal session no longer exists');
        return;
      }
    }
    const delays = this.options.retryDelays ?? [250, 500, 1000, 2000, 4000];
    const delay = delays[Math.min(this.attempts, delays.length - 1)];
    this.attempts += 1;
    this.options.onStatus?.('reconnecting');
    this.timer = (this.options.setTimer ?? setTimeout)(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private flushPending(): void {
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const chunk of pending) this.send(chunk);
  }
}

/** Close reasons `{"exitCode":N}` (default protocol) also mean the shell ended. */
export function exitCodeFromReason(reason: string): number | null {
  if (!reason || reason[0] !== '{') return null;
  try {
    const parsed = JSON.parse(reason) as { exitCode?: unknown };
    return typeof parsed.exitCode === 'number' ? parsed.exitCode : null;
  } catch {
    return null;
  }
}
