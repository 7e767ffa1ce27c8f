import path from 'node:path';
import { BadRequest, Conflict, LimitExceeded, NotFound } from '../../errors';
import { log } from '../../log';
import type { SandboxRuntime } from '../../runtime/types';
import type { SandboxState } from '../../spec/common';
import type { CreatePtyBody, PtySession } from '../../spec/pty';
import type { SandboxService } from '../sandboxes';
import { newId, nowIso } from '../ids';
import { signalMarked } from '../process-marker';
import { PtySessionHandle } from './session';

/** The sandbox work dir of the default snapshot; relative `cwd`s are taken from here. */
export const DEFAULT_CWD = '/workspace';
const MAX_LIVE_SESSIONS = 64;
const MAX_KEPT_EXITED = 32;
/** Set in the shell's environment; DELETE finds the session's processes by it. */
export const SESSION_ENV = 'SHOAL_PTY_SESSION';

/**
 * One exec checks the start directory and whether bash exists. Constant script; the directory
 * is a positional argument, never interpolated. Exit 3: no such directory; 4: no bash.
 */
const PROBE_SCRIPT = 'test -d "$1" || exit 3; command -v bash >/dev/null 2>&1 || exit 4; exit 0';

/** Sandbox states in which a sandbox's terminals end. */
const ENDING_STATES: ReadonlySet<SandboxState> = new Set(['stopping', 'stopped', 'deleting', 'deleted']);

type Sandboxes = Pick<SandboxService, 'ready' | 'touchById' | 'onStateChange'>;

/**
 * The PTY session registry. One per process (a registry singleton): route handlers create and
 * resize sessions, the custom server's WebSocket upgrade attaches to them.
 */
export class PtyService {
  private readonly bySandbox = new Map<string, Map<string, PtySessionHandle>>();
  private readonly reserved = new Set<string>();

  constructor(
    private readonly sandboxes: Sandboxes,
    private readonly runtime: SandboxRuntime,
  ) {
    sandboxes.onStateChange((sandboxId, state) => {
      if (ENDING_STATES.has(state)) this.endSandbox(sandboxId, state === 'stopping' || state === 'stopped');
    });
  }

  async create(teamId: string, sandboxId: string, body: CreatePtyBody): Promise<PtySession> {
    const sandbox = await this.sandboxes.ready(teamId, sandboxId);
    const sessions = this.sessionsOf(sandboxId);
    const id = body.id ?? newId('pty');
    const key = `${sandboxId}/${id}`;
    if (sessions.has(id) || this.reserved.has(key)) throw new Conflict(`PTY session '${id}' already exists`);
    this.prune(sessions);
    const live = [...sessions.values()].filter((session) => session.state !== 'exited').length;
    if (live >= MAX_LIVE_SESSIONS) {
      throw new LimitExceeded(`At most ${MAX_LIVE_SESSIONS} terminal sessions per sandbox; delete one first`, 5);
    }
    this.reserved.add(key);
    try {
      const cwd = path.posix.resolve(DEFAULT_CWD, body.cwd ?? DEFAULT_CWD);
      const probe = await this.runtime.exec(sandbox.container_id, ['sh', '-c', PROBE_SCRIPT, 'sh', cwd], {
        timeoutMs: 10_000,
      });
      if (probe.exitCode === 3) throw new BadRequest(`Directory '${cwd}' does not exist in the sandbox`);
      const shell = probe.exitCode === 4 ? ['sh', '-l'] : ['bash', '-l'];
      const envs = { TERM: 'xterm-256color', ...body.envs };
      const containerId = sandbox.container_id;
      const session = new PtySessionHandle({
        id,
        sandboxId,
        cwd,
        envs,
        cols: body.cols ?? 80,
        rows: body.rows ?? 24,
        lazyStart: body.lazy_start ?? false,
        createdAt: nowIso(),
        open: (cols, rows) =>
          this.runtime.openTty(containerId, shell, { cols, rows, cwd, env: { ...envs, [SESSION_ENV]: id } }),
        // What a terminal hang-up does: the shell and everything it started carry the marker.
        signal: (signal) => signalMarked(this.runtime, containerId, signal, SESSION_ENV, id),
        onActivity: () => this.sandboxes.touchById(sandboxId),
      });
      if (!session.lazyStart) await session.start();
      sessions.set(id, session);
      return session.view();
    } finally {
      this.reserved.delete(key);
    }
  }

  async list(teamId: string, sandboxId: string): Promise<{ items: PtySession[] }> {
    await this.sandboxes.ready(teamId, sandboxId);
    return { items: [...this.sessionsOf(sandboxId).values()].map((session) => session.view()) };
  }

  async get(teamId: string, sandboxId: string, sid: string): Promise<PtySession> {
    return (await this.find(teamId, sandboxId, sid)).view();
  }

  async resize(teamId: string, sandboxId: string, sid: string, cols: number, rows: number): Promise<PtySession> {
    const session = await this.find(teamId, sandboxId, sid);
    await session.resize(cols, rows);
    return session.view();
  }

  async remove(teamId: string, sandboxId: string, sid: string): Promise<void> {
    const session = await this.find(teamId, sandboxId, sid);
    this.bySandbox.get(sandboxId)?.delete(sid);
    await session.kill();
  }

  /**
   * For the WebSocket upgrade: the session, started if it was lazy. Throws NotFound (unknown
   * sandbox or session) or Conflict (sandbox not running, shell exited) before any upgrade.
   */
  async prepareConnect(teamId: string, sandboxId: string, sid: string): Promise<PtySessionHandle> {
    const session = await this.find(teamId, sandboxId, sid);
    if (session.state === 'exited') {
      throw new Conflict(`PTY session '${sid}' has exited (exit code ${session.exitCode ?? -1})`);
    }
    await session.start();
    return session;
  }

  /** Server shutdown: close every socket; the shells stay (as they would after a network drop). */
  shutdown(): void {
    for (const sessions of this.bySandbox.values()) {
      for (const session of sessions.values()) session.end('Server shutting down');
    }
    this.bySandbox.clear();
  }

  private async find(teamId: string, sandboxId: string, sid: string): Promise<PtySessionHandle> {
    await this.sandboxes.ready(teamId, sandboxId);
    const session = this.bySandbox.get(sandboxId)?.get(sid);
    if (!session) throw new NotFound('PTY session', sid);
    return session;
  }

  private sessionsOf(sandboxId: string): Map<string, PtySessionHandle> {
    let sessions = this.bySandbox.get(sandboxId);
    if (!sessions) {
      sessions = new Map();
      this.bySandbox.set(sandboxId, sessions);
    }
    return sessions;
  }

  /** Exited sessions stay listed (with their exit code) until deleted; the oldest go beyond a cap. */
  private prune(sessions: Map<string, PtySessionHandle>): void {
    const exited = [...sessions.values()].filter((session) => session.state === 'exited');
    for (const session of exited.slice(0, Math.max(0, exited.length - MAX_KEPT_EXITED))) sessions.delete(session.id);
  }

  private endSandbox(sandboxId: string, stopped: boolean): void {
    const sessions = this.bySandbox.get(sandboxId);
    if (!sessions) return;
    this.bySandbox.delete(sandboxId);
    const reason = stopped ? `Sandbox '${sandboxId}' stopped` : `Sandbox '${sandboxId}' deleted`;
    if (sessions.size > 0) log.info('ending terminal sessions', { sandbox: sandboxId, sessions: sessions.size });
    for (const session of sessions.values()) session.end(reason);
  }
}
