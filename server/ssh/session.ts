import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { PseudoTtyInfo, ServerChannel, Session } from 'ssh2';
import { isDomainError } from '../errors';
import { log } from '../log';
import type { SandboxRuntime, TtyProcess } from '../runtime/types';
import { signalMarked } from '../services/process-marker';
import type { SandboxService } from '../services/sandboxes';

/** Where shells, commands and SFTP start: the snapshot's work dir. */
const WORKDIR = '/workspace';
/** While a channel is open the sandbox counts as in use (like an open IDE terminal). */
const TOUCH_EVERY_MS = 5000;
/** Client variables a session accepts (OpenSSH's default `SendEnv LANG LC_*`, and colour hints). */
const ACCEPTED_ENV = /^(LANG|LANGUAGE|LC_[A-Z_]+|COLORTERM|TZ)$/;

/**
 * The SFTP server inside the sandbox. A constant script (no user input in it) that starts the
 * first sftp-server it finds; Debian's openssh-sftp-server puts it in /usr/lib/openssh.
 */
const SFTP_SCRIPT =
  'for p in /usr/lib/openssh/sftp-server /usr/libexec/openssh/sftp-server /usr/lib/ssh/sftp-server /usr/libexec/sftp-server; do' +
  ' [ -x "$p" ] && exec "$p"; done;' +
  ' echo "sftp-server is not installed in this sandbox (Debian: apt-get install openssh-sftp-server)" >&2; exit 127';

/**
 * Set in each session process's environment; a hang-up finds the processes by it. What a
 * dropped connection does to a terminal: SIGHUP to every process carrying this session's marker
 * (the shell passes it on to its jobs; `nohup`ed work survives, as with sshd). Docker keeps an
 * exec running when its connection closes, so without this a vanished client would leave its
 * shell behind.
 */
const SESSION_ENV = 'SHOAL_SSH_SESSION';

export interface SessionTarget {
  sandboxId: string;
  teamId: string;
  sandboxes: SandboxService;
  runtime: SandboxRuntime;
}

/**
 * One SSH session channel: remembers `env` and `pty-req`, then runs the shell, the command or
 * the SFTP server inside the sandbox and bridges the channel to it both ways, ending with the
 * process's exit status.
 */
export function handleSession(session: Session, target: SessionTarget): void {
  const env: Record<string, string> = {};
  let pty: PseudoTtyInfo | null = null;
  /** Set while a terminal runs: applies a window-change in order with the keystrokes. */
  let resizeTerminal: ((cols: number, rows: number) => void) | null = null;

  session.on('env', (accept, reject, info) => {
    if (ACCEPTED_ENV.test(info.key) && info.val.length <= 256 && !info.val.includes('\0')) {
      env[info.key] = info.val;
      accept?.();
    } else reject?.();
  });
  session.on('pty', (accept, _reject, info) => {
    pty = info;
    accept?.();
  });
  session.on('window-change', (accept, _reject, info) => {
    if (pty) pty = { ...pty, cols: info.cols, rows: info.rows };
    resizeTerminal?.(info.cols, info.rows);
    accept?.();
  });
  session.on('shell', (accept) => {
    const channel = accept();
    if (channel) void run(channel, null);
  });
  session.on('exec', (accept, _reject, info) => {
    const channel = accept();
    if (channel) void run(channel, info.command);
  });
  session.on('subsystem', (accept, reject, info) => {
    if (info.name !== 'sftp') return reject();
    const channel = accept();
    if (channel) void bridge(channel, ['sh', '-c', SFTP_SCRIPT], {}, false);
  });

  async function run(channel: ServerChannel, command: string | null): Promise<void> {
    // The user sends a shell command line by definition (that is what `ssh host cmd` means), so
    // it is handed to bash as one string; a login shell reads the image's profile like sshd's would.
    const argv = command === null ? ['bash', '-l'] : ['bash', '-lc', command];
    await bridge(channel, argv, env, pty !== null);
  }

  async function bridge(
    channel: ServerChannel,
    argv: string[],
    processEnv: Record<string, string>,
    withTty: boolean,
  ): Promise<void> {
    let closed = false;
    let exited = false;
    let stopProcess = () => undefined as void;
    const marker = randomBytes(9).toString('base64url');
    channel.once('close', () => {
      closed = true;
      stopProcess();
    });
    channel.on('error', () => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      const sandbox = await target.sandboxes.ready(target.teamId, target.sandboxId);
      if (closed) return;
      timer = setInterval(() => target.sandboxes.touchById(target.sandboxId), TOUCH_EVERY_MS);
      const hangUp = () => {
        if (exited) return;
        void signalMarked(target.runtime, sandbox.container_id, 'HUP', SESSION_ENV, marker).catch(() => undefined);
      };
      const markedEnv = { ...processEnv, [SESSION_ENV]: marker };
      let exitCode: number;
      if (withTty && pty) {
        const size = { cols: pty.cols || 80, rows: pty.rows || 24 };
        const opened = await target.runtime.openTty(sandbox.container_id, argv, {
          ...size,
          env: { ...markedEnv, TERM: pty.term || 'xterm-256color' },
          cwd: WORKDIR,
        });
        stopProcess = () => {
          opened.stream.destroy();
          hangUp();
        };
        if (closed) stopProcess();
        opened.stream.on('error', () => undefined);
        opened.stream.pipe(channel, { end: false });
        // The client's EOF does not end a terminal (as with sshd): the shell ends it with `exit`.
        resizeTerminal = terminalInput(channel, opened);
        // A window-change may have arrived while the terminal was being opened.
        const current = pty as PseudoTtyInfo;
        if (current.cols && current.rows && (current.cols !== size.cols || current.rows !== size.rows)) {
          resizeTerminal(current.cols, current.rows);
        }
        exitCode = await opened.exitCode();
        exited = true;
      } else {
        const child = await target.runtime.openExec(sandbox.container_id, argv, { env: markedEnv, cwd: WORKDIR });
        stopProcess = () => {
          child.close();
          hangUp();
        };
        if (closed) stopProcess();
        child.stdin.on('error', () => undefined);
        child.stdout.pipe(channel, { end: false });
        child.stderr.pipe(channel.stderr, { end: false });
        // The client's EOF closes the process's stdin (`echo x | ssh host cat` ends).
        channel.pipe(child.stdin);
        exitCode = await child.exitCode();
        exited = true;
      }
      if (closed) return;
      await flushed(channel, () => closed);
      await flushed(channel.stderr, () => closed);
      if (exitCode >= 0) channel.exit(exitCode);
      channel.end();
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      if (!isDomainError(error)) log.error('ssh session failed', { sandbox: target.sandboxId, error });
      if (!closed) {
        channel.stderr.write(`shoal: ${message}\r\n`);
        channel.exit(1);
        channel.end();
      }
    } finally {
      clearInterval(timer);
      resizeTerminal = null;
    }
  }
}

/**
 * Client → terminal, in SSH's order: keystrokes sent after a window-change reach the shell only
 * once the terminal has its new size (sshd applies it at once with an ioctl; here it is an
 * engine call). Back-pressure from the terminal pauses the channel, and so the client through
 * SSH's window. Returns the resize function.
 */
function terminalInput(channel: ServerChannel, tty: TtyProcess): (cols: number, rows: number) => void {
  let resizing = 0;
  let blocked = false;
  const update = () => (resizing > 0 || blocked ? channel.pause() : channel.resume());
  channel.on('data', (chunk: Buffer) => {
    if (tty.stream.write(chunk)) return;
    blocked = true;
    update();
    tty.stream.once('drain', () => {
      blocked = false;
      update();
    });
  });
  return (cols, rows) => {
    resizing += 1;
    update();
    void tty
      .resize(cols, rows)
      .catch(() => undefined)
      .finally(() => {
        resizing -= 1;
        update();
      });
  };
}

/** Resolves once everything written to `stream` has been handed to the SSH transport. */
function flushed(stream: Writable, closed: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (stream.writableLength === 0 || closed() || stream.destroyed) {
        clearInterval(poll);
        resolve();
      }
    };
    const poll = setInterval(check, 10);
    check();
  });
}
