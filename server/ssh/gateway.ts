import type { AddressInfo } from 'node:net';
import { Server, type Connection, type PasswordAuthContext } from 'ssh2';
import { hasCode } from '../errors';
import { log } from '../log';
import type { SandboxRuntime } from '../runtime/types';
import type { SandboxState } from '../spec/common';
import type { SandboxService } from '../services/sandboxes';
import type { SshAccessService } from '../services/ssh-access';
import { AuthThrottle } from './auth-throttle';
import { handleSession } from './session';

/** A connection that has not logged in by then is dropped (sshd's LoginGraceTime). */
const LOGIN_GRACE_MS = 60_000;
/** Password attempts per connection (sshd's MaxAuthTries). */
const MAX_AUTH_TRIES = 6;
/** Sessions end when their sandbox leaves the running state for one of these. */
const CLOSING_STATES: ReadonlySet<SandboxState> = new Set(['paused', 'stopping', 'stopped', 'deleting', 'deleted']);

export interface GatewayDeps {
  hostKey: string;
  access: SshAccessService;
  sandboxes: SandboxService;
  runtime: SandboxRuntime;
  throttle?: AuthThrottle;
}

interface LoggedIn {
  accessId: string;
  sandboxId: string;
  teamId: string;
}

/**
 * Shoal's SSH server: user name = access id, password = the credential (password auth only).
 * Each session runs a shell, a command or SFTP inside the credential's sandbox.
 */
export class SshGateway {
  private server: Server | null = null;
  private readonly connections = new Map<Connection, LoggedIn | null>();
  private readonly throttle: AuthThrottle;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(private readonly deps: GatewayDeps) {
    this.throttle = deps.throttle ?? new AuthThrottle();
  }

  /** Listens and resolves with the port (useful when `port` is 0). */
  async listen(port: number, host: string): Promise<number> {
    const server = new Server({ hostKeys: [this.deps.hostKey], ident: 'Shoal' }, (client, info) =>
      this.onConnection(client, info.ip),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error: Error) => log.error('ssh gateway error', { error }));
    this.server = server;
    this.unsubscribe.push(
      this.deps.access.onRevoked((accessId) => this.disconnect((session) => session.accessId === accessId)),
      this.deps.sandboxes.onStateChange((sandboxId, state) => {
        if (CLOSING_STATES.has(state)) this.disconnect((session) => session.sandboxId === sandboxId);
      }),
    );
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const stop of this.unsubscribe.splice(0)) stop();
    const server = this.server;
    this.server = null;
    for (const client of this.connections.keys()) client.end();
    this.connections.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private disconnect(match: (session: LoggedIn) => boolean): void {
    for (const [client, session] of this.connections) {
      if (session && match(session)) client.end();
    }
  }

  private onConnection(client: Connection, address: string): void {
    this.connections.set(client, null);
    // Small packets (keystrokes, protocol replies) go out at once instead of waiting for an ACK.
    // (ssh2 has the method on server-side connections; its type definitions omit it.)
    (client as Connection & { setNoDelay(noDelay: boolean): unknown }).setNoDelay(true);
    let attempts = 0;
    const grace = setTimeout(() => client.end(), LOGIN_GRACE_MS);
    const forget = () => {
      clearTimeout(grace);
      this.connections.delete(client);
    };
    client.on('close', forget);
    client.on('end', forget);
    // Resets and protocol errors from clients are routine; they only end this connection.
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'password') return ctx.reject(['password']);
      attempts += 1;
      if (attempts > MAX_AUTH_TRIES) return client.end();
      void this.authenticate(ctx, client, address);
    });
    client.on('ready', () => {
      clearTimeout(grace);
      const session = this.connections.get(client);
      if (!session) return client.end();
      client.on('session', (accept) => {
        const channel = accept();
        if (channel) {
          handleSession(channel, {
            sandboxId: session.sandboxId,
            teamId: session.teamId,
            sandboxes: this.deps.sandboxes,
            runtime: this.deps.runtime,
          });
        }
      });
    });
  }

  private async authenticate(ctx: PasswordAuthContext, client: Connection, address: string): Promise<void> {
    let loggedIn: LoggedIn | null = null;
    try {
      const access = await this.deps.access.authenticate(ctx.username, ctx.password);
      if (access) {
        // Resumes a paused sandbox and waits for a starting one. A sandbox that is gone refuses
        // the login; one that cannot run now (stopped, engine down) is explained in the session.
        await this.deps.sandboxes.ready(access.team_id, access.sandbox_id).catch((error) => {
          if (hasCode(error, 'not_found')) throw error;
        });
        loggedIn = { accessId: access.id, sandboxId: access.sandbox_id, teamId: access.team_id };
      }
    } catch (error) {
      if (!hasCode(error, 'not_found')) log.error('ssh login check failed', { error });
      loggedIn = null;
    }
    if (!this.connections.has(client)) return;
    if (loggedIn) {
      this.connections.set(client, loggedIn);
      log.info('ssh login', { access: loggedIn.accessId, sandbox: loggedIn.sandboxId, address });
      return answer(() => ctx.accept());
    }
    const wait = this.throttle.failure(address);
    log.warn('ssh login refused', { address, failures: this.throttle.failures(address) });
    if (wait === null) {
      client.end();
      return;
    }
    setTimeout(() => answer(() => ctx.reject(['password'])), wait);
  }
}

/** The client may have gone while we checked; answering it then is a no-op. */
function answer(reply: () => void): void {
  try {
    reply();
  } catch {
    // Connection already closed.
  }
}
