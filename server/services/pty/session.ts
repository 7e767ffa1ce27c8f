import type { TtyProcess } from '../../runtime/types';
import type { PtySession as PtySessionView } from '../../spec/pty';
import { controlFrame, exitClose } from './frames';
import { OutputScheduler } from './output-scheduler';
import { RingBuffer } from './ring-buffer';

/** Recent output kept per session: replayed on attach and used to resume at an offset. */
export const RING_BYTES = 512 * 1024;
/** Largest output frame. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Back-pressure: the shell's output is paused while any client has more than HIGH unsent… */
export const HIGH_WATERMARK = 256 * 1024;
/** …and resumed once every client is below LOW. */
export const LOW_WATERMARK = 64 * 1024;
/** A client that makes no progress for this long while the output waits for it is closed (1008). */
export const STALL_MS = 5000;
const STALL_CHECK_MS = 250;
const ACTIVITY_EVERY_MS = 1000;
const OPEN = 1;

/** What a session needs of a WebSocket (the `ws` WebSocket fits; tests pass fakes). */
export interface PtySocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: Buffer, options: { binary: boolean }, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
}

export interface AttachOptions {
  /** The `shoal.pty.v1` subprotocol: typed frames, hello and exit messages. */
  framed: boolean;
  /** Start at this stream offset (clamped into what is buffered). */
  offset?: number;
  /** Without an offset: replay the buffered output (true) or start at the live end (false). */
  replay: boolean;
}

export type PtyState = 'pending' | 'starting' | 'running' | 'exited';

export interface PtySessionInit {
  id: string;
  sandboxId: string;
  cwd: string;
  envs: Record<string, string>;
  cols: number;
  rows: number;
  lazyStart: boolean;
  createdAt: string;
  /** Opens the shell with the given window size. */
  open(cols: number, rows: number): Promise<TtyProcess>;
  /** Signals every process of this session inside the sandbox. */
  signal(signal: 'HUP' | 'KILL'): Promise<void>;
  /** Terminal input or output happened (keeps the sandbox from timing out). */
  onActivity(): void;
}

interface Client {
  socket: PtySocket;
  framed: boolean;
  /** Offset of the next output byte this client gets. */
  cursor: number;
  /** When a write to this client last completed (or the stall clock was last reset). */
  progressAt: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/**
 * One shell behind a TTY: its output goes into a ring buffer with a running byte offset and is
 * fanned out to every attached socket; the exec stream is paused while a socket lags.
 */
export class PtySessionHandle {
  readonly id: string;
  readonly sandboxId: string;
  readonly cwd: string;
  readonly envs: Record<string, string>;
  readonly lazyStart: boolean;
  readonly createdAt: string;
  cols: number;
  rows: number;
  state: PtyState;
  exitCode: number | undefined;

  private readonly ring = new RingBuffer(RING_BYTES);
  private readonly clients = new Set<Client>();
  private readonly scheduler: OutputScheduler;
  private process: TtyProcess | null = null;
  private starting: Promise<void> | null = null;
  private paused = false;
  private stallTimer: ReturnType<typeof setInterval> | null = null;
  private lastActivity = 0;
  private finishing = false;
  private resolveExited!: () => void;
  /** Resolves once the session has ended (shell exited, killed, or sandbox gone). */
  readonly exited = new Promise<void>((resolve) => (this.resolveExited = resolve));

  constructor(private readonly init: PtySessionInit) {
    this.id = init.id;
    this.sandboxId = init.sandboxId;
    this.cwd = init.cwd;
    this.envs = init.envs;
    this.cols = init.cols;
    this.rows = init.rows;
    this.lazyStart = init.lazyStart;
    this.createdAt = init.createdAt;
    this.state = 'pending';
    this.scheduler = new OutputScheduler(() => this.flush());
  }

  get active(): boolean {
    return this.state === 'running';
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Bytes of output ever produced (the offset the next output byte will have). */
  get outputOffset(): number {
    return this.ring.end;
  }

  view(): PtySessionView {
    return {
      id: this.id,
      cwd: this.cwd,
      envs: { ...this.envs },
      cols: this.cols,
      rows: this.rows,
      created_at: this.createdAt,
      active: this.active,
      lazy_start: this.lazyStart,
      ...(this.exitCode !== undefined ? { exit_code: this.exitCode } : {}),
    };
  }

  /** Starts the shell (once; concurrent callers share the start). */
  start(): Promise<void> {
    if (this.state === 'running' || this.state === 'exited') return Promise.resolve();
    this.starting ??= (async () => {
      this.state = 'starting';
      const opened = { cols: this.cols, rows: this.rows };
      let tty: TtyProcess;
      try {
        tty = await this.init.open(opened.cols, opened.rows);
      } catch (error) {
        this.state = 'pending';
        this.starting = null;
        throw error;
      }
      // `exited` is only set here when the session was ended while the shell was starting.
      if ((this.state as PtyState) === 'exited') {
        tty.stream.destroy();
        return;
      }
      this.process = tty;
      this.state = 'running';
      tty.stream.on('data', (chunk: Buffer) => this.onOutput(chunk));
      tty.stream.once('end', () => void this.finish());
      tty.stream.once('close', () => void this.finish());
      tty.stream.on('error', () => void this.finish());
      // A resize that arrived while the shell was starting.
      if (this.cols !== opened.cols || this.rows !== opened.rows) {
        await tty.resize(this.cols, this.rows).catch(() => undefined);
      }
    })();
    return this.starting;
  }

  async resize(cols: number, rows: number): Promise<void> {
    // A running shell gets the new size first, so that a reader who sees it reported (GET) can
    // count on the terminal having it; before the start it is only stored and applied then.
    if (this.state === 'running' && this.process) await this.process.resize(cols, rows);
    this.cols = cols;
    this.rows = rows;
  }

  input(data: Buffer): void {
    if (this.state !== 'running' || !this.process || data.length === 0) return;
    this.scheduler.inputSent();
    this.process.stream.write(data);
    this.activity();
  }

  attach(socket: PtySocket, options: AttachOptions): void {
    if (this.state === 'exited') {
      this.closeExited(socket, options.framed);
      return;
    }
    const requested = options.offset ?? (options.replay ? this.ring.start : this.ring.end);
    const from = this.ring.clamp(requested);
    const client: Client = { socket, framed: options.framed, cursor: from, progressAt: performance.now() };
    if (client.framed) {
      const hello = controlFrame({
        type: 'hello',
        offset: from,
        lost: Math.max(0, from - requested),
        cols: this.cols,
        rows: this.rows,
      });
      this.send(client, hello);
    }
    this.clients.add(client);
    this.sendUpTo(client, this.ring.end, new Map());
    this.checkPressure();
  }

  detach(socket: PtySocket): void {
    for (const client of this.clients) if (client.socket === socket) this.clients.delete(client);
    this.maybeResume();
  }

  /** Ends the session without waiting for the shell: sockets are closed with 1001 and `reason`. */
  end(reason: string): void {
    this.closeClients(1001, JSON.stringify({ reason }));
    if (this.state !== 'exited') this.state = 'exited';
    this.dispose();
  }

  /** DELETE: hang up the shell (SIGHUP to the session's processes; SIGKILL if it survives). */
  async kill(): Promise<void> {
    const reason = 'PTY session deleted';
    this.closeClients(1001, JSON.stringify({ reason }));
    if (this.state === 'starting') await this.starting?.catch(() => undefined);
    if (this.state === 'running') {
      await this.init.signal('HUP').catch(() => undefined);
      const ended = await Promise.race([this.exited.then(() => true), sleep(2000).then(() => false)]);
      if (!ended) {
        await this.init.signal('KILL').catch(() => undefined);
        await Promise.race([this.exited, sleep(1000)]);
      }
    }
    this.end(reason);
  }

  // ---- output ---------------------------------------------------------------------------

  private onOutput(chunk: Buffer): void {
    this.ring.append(chunk);
    this.scheduler.push(chunk.length);
    this.activity();
  }

  private flush(): void {
    const end = this.ring.end;
    const shared = new Map<string, Buffer[]>();
    for (const client of this.clients) this.sendUpTo(client, end, shared);
    this.checkPressure();
  }

  /** Sends a client everything from its cursor up to `end`, in frames of at most 64 KiB. */
  private sendUpTo(client: Client, end: number, shared: Map<string, Buffer[]>): void {
    if (client.cursor >= end) return;
    if (client.cursor < this.ring.start) {
      // Cannot happen while flushes keep up (they do: a flush is due every 64 KiB); never skip silently.
      this.drop(client, 1008, 'Client fell behind the output buffer');
      return;
    }
    const key = `${client.framed ? 1 : 0}:${client.cursor}`;
    let frames = shared.get(key);
    if (!frames) {
      frames = [];
      for (let at = client.cursor; at < end;) {
        const length = Math.min(end - at, MAX_FRAME_BYTES);
        const header = client.framed ? 1 : 0;
        const frame = Buffer.allocUnsafe(length + header);
        if (client.framed) frame[0] = 0;
        this.ring.copyOut(at, frame, header);
        frames.push(frame);
        at += length;
      }
      shared.set(key, frames);
    }
    for (const frame of frames) this.send(client, frame);
    client.cursor = end;
  }

  private send(client: Client, frame: Buffer): void {
    if (client.socket.readyState !== OPEN) return;
    client.socket.send(frame, { binary: true }, (error) => {
      if (error) return;
      client.progressAt = performance.now();
      this.maybeResume();
    });
  }

  // ---- back-pressure --------------------------------------------------------------------

  private checkPressure(): void {
    if (this.paused || !this.process) return;
    let over = false;
    for (const client of this.clients) if (client.socket.bufferedAmount > HIGH_WATERMARK) over = true;
    if (!over) return;
    this.paused = true;
    this.process.stream.pause();
    const now = performance.now();
    for (const client of this.clients) client.progressAt = Math.max(client.progressAt, now);
    this.stallTimer ??= setInterval(() => this.checkStalls(), STALL_CHECK_MS);
    this.stallTimer.unref?.();
  }

  private maybeResume(): void {
    if (!this.paused) return;
    for (const client of this.clients) {
      if (client.socket.readyState === OPEN && client.socket.bufferedAmount > LOW_WATERMARK) return;
    }
    this.paused = false;
    if (this.stallTimer) clearInterval(this.stallTimer);
    this.stallTimer = null;
    this.process?.stream.resume();
  }

  private checkStalls(): void {
    const now = performance.now();
    for (const client of this.clients) {
      if (client.socket.readyState !== OPEN) {
        this.clients.delete(client);
        continue;
      }
      if (client.socket.bufferedAmount > LOW_WATERMARK && now - client.progressAt > STALL_MS) {
        this.drop(client, 1008, 'Client too slow: output not read');
      }
    }
    this.maybeResume();
  }

  private drop(client: Client, code: number, reason: string): void {
    this.clients.delete(client);
    try {
      client.socket.close(code, reason);
    } catch {
      // already closing
    }
  }

  // ---- ending ---------------------------------------------------------------------------

  private async finish(): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    let code = -1;
    try {
      code = (await this.process?.exitCode()) ?? -1;
    } catch {
      code = -1;
    }
    if (this.state === 'exited') return;
    this.exitCode = code;
    this.state = 'exited';
    this.scheduler.flushNow();
    const close = exitClose(code);
    for (const client of this.clients) {
      if (client.framed) this.send(client, controlFrame({ type: 'exit', exitCode: code }));
      this.drop(client, close.code, close.reason);
    }
    this.dispose();
  }

  private closeExited(socket: PtySocket, framed: boolean): void {
    const code = this.exitCode ?? -1;
    const close = exitClose(code);
    if (framed && socket.readyState === OPEN)
      socket.send(controlFrame({ type: 'exit', exitCode: code }), { binary: true });
    socket.close(close.code, close.reason);
  }

  private closeClients(code: number, reason: string): void {
    for (const client of [...this.clients]) this.drop(client, code, reason);
  }

  private dispose(): void {
    this.scheduler.dispose();
    if (this.stallTimer) clearInterval(this.stallTimer);
    this.stallTimer = null;
    this.paused = false;
    if (this.process && !this.process.stream.destroyed) this.process.stream.destroy();
    this.resolveExited();
  }

  private activity(): void {
    const now = Date.now();
    if (now - this.lastActivity < ACTIVITY_EVERY_MS) return;
    this.lastActivity = now;
    try {
      this.init.onActivity();
    } catch {
      // activity is best effort
    }
  }
}
