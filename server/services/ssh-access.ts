import { EventEmitter } from 'node:events';
import { generatePassword, hashPassword, verifyPassword } from '../auth/passwords';
import { loadConfig } from '../config';
import { NotFound } from '../errors';
import type { SshAccess, SshValidation } from '../spec/ssh';
import type { Store } from '../store';
import type { SshAccessRecord } from '../store/ssh-access';
import { newId } from './ids';

export const DEFAULT_SSH_PORT = 2222;
export const DEFAULT_SSH_TTL_SECONDS = 24 * 60 * 60;

/** `SHOAL_SSH_PORT`: 0–65535 (0 = any free port), or `off` to run no gateway. Default 2222. */
export function sshPortFromEnv(env: Record<string, string | undefined> = process.env): number | null {
  const raw = env.SHOAL_SSH_PORT?.trim();
  if (raw === undefined || raw === '') return DEFAULT_SSH_PORT;
  if (raw.toLowerCase() === 'off') return null;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SHOAL_SSH_PORT must be a port number (0 = any free port) or 'off', got '${raw}'`);
  }
  return port;
}

/** `SHOAL_SSH_TTL`: lifetime of a credential in seconds. Default 24 h. */
export function sshTtlSecondsFromEnv(env: Record<string, string | undefined> = process.env): number {
  const raw = env.SHOAL_SSH_TTL?.trim();
  if (raw === undefined || raw === '') return DEFAULT_SSH_TTL_SECONDS;
  const ttl = Number(raw);
  if (!Number.isInteger(ttl) || ttl < 1)
    throw new Error(`SHOAL_SSH_TTL must be a positive number of seconds, got '${raw}'`);
  return ttl;
}

/**
 * The host name part of a Host header, a `host:port`, a `[v6]:port` or a URL; undefined when
 * it holds anything but host name characters (the result is pasted into a shell command).
 */
export function hostNameOnly(value: string | null | undefined): string | undefined {
  let host = value?.split(',')[0]?.trim();
  if (!host) return undefined;
  if (host.includes('://')) {
    try {
      host = new URL(host).hostname;
    } catch {
      return undefined;
    }
  }
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']') > 0 ? host.indexOf(']') : undefined);
  else if (host.split(':').length === 2) host = host.slice(0, host.indexOf(':'));
  return /^[A-Za-z0-9._:-]+$/.test(host) ? host : undefined;
}

/** The host the client addressed: a proxy's X-Forwarded-Host, else the Host header. */
export function requestHost(headers: { get(name: string): string | null }): string | null {
  return headers.get('x-forwarded-host') ?? headers.get('host');
}

export interface SshAccessOptions {
  ttlSeconds: number;
  /** `SHOAL_PUBLIC_HOST`; otherwise the host name the request was sent to. */
  publicHost?: string;
  /** The port put in `ssh_command` until the gateway reports the one it listens on. */
  configuredPort: number | null;
  now?: () => number;
}

export type SshAccessListener = (accessId: string) => void;

/**
 * SSH credentials: one per sandbox, its id the SSH user name, the password shown once and
 * stored as an scrypt hash. The gateway (`server/ssh/`) logs users in with `authenticate`.
 */
export class SshAccessService {
  private readonly events = new EventEmitter();
  private readonly now: () => number;
  private listeningPort: number | null = null;
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly store: Store,
    private readonly options: SshAccessOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.events.setMaxListeners(0);
  }

  /** Called with the id of a credential that was deleted or replaced (the gateway ends its sessions). */
  onRevoked(listener: SshAccessListener): () => void {
    this.events.on('revoked', listener);
    return () => this.events.off('revoked', listener);
  }

  /** The gateway reports the port it actually listens on (SHOAL_SSH_PORT=0 picks a free one). */
  setGatewayPort(port: number | null): void {
    this.listeningPort = port;
  }

  gatewayPort(): number {
    return this.listeningPort ?? this.options.configuredPort ?? DEFAULT_SSH_PORT;
  }

  sshCommand(accessId: string, requestHost?: string | null): string {
    const host = hostNameOnly(this.options.publicHost) ?? hostNameOnly(requestHost) ?? 'localhost';
    return `ssh -p ${this.gatewayPort()} ${accessId}@${host}`;
  }

  /** A new credential for the sandbox; the one it had stops working at once. */
  async create(teamId: string, sandboxId: string, requestHost?: string | null): Promise<SshAccess> {
    this.sandbox(teamId, sandboxId);
    const password = generatePassword();
    const passwordHash = await hashPassword(password);
    const now = this.now();
    const record: SshAccessRecord = {
      id: newId('ssh'),
      sandbox_id: sandboxId,
      team_id: teamId,
      password_hash: passwordHash,
      expires_at: this.expiresAt(now),
      created_at: new Date(now).toISOString(),
      updated_at: new Date(now).toISOString(),
    };
    // Re-checked after the (slow) hash: the sandbox may have been deleted meanwhile.
    this.sandbox(teamId, sandboxId);
    const previous = this.store.sshAccess.forSandbox(sandboxId);
    this.store.sshAccess.replaceForSandbox(record);
    if (previous) this.events.emit('revoked', previous.id);
    return this.view(record, password, requestHost);
  }

  /** New password, fresh expiry; the old password stops working at once. No id: the sandbox's credential. */
  async regen(
    teamId: string,
    sandboxId: string,
    accessId: string | undefined,
    requestHost?: string | null,
  ): Promise<SshAccess> {
    const record = this.find(teamId, sandboxId, accessId);
    const password = generatePassword();
    const passwordHash = await hashPassword(password);
    const now = this.now();
    const rotated: SshAccessRecord = {
      ...record,
      password_hash: passwordHash,
      expires_at: this.expiresAt(now),
      updated_at: new Date(now).toISOString(),
    };
    if (!this.store.sshAccess.rotate(record.id, rotated.password_hash, rotated.expires_at, rotated.updated_at)) {
      throw new NotFound('SSH access', record.id);
    }
    return this.view(rotated, password, requestHost);
  }

  /** `valid` is false for a wrong password or an expired credential; an unknown id is NotFound. */
  async validate(teamId: string, sandboxId: string, accessId: string, password: string): Promise<SshValidation> {
    const record = this.find(teamId, sandboxId, accessId);
    const matches = await verifyPassword(password, record.password_hash);
    return { valid: matches && !this.expired(record), sandbox_id: record.sandbox_id };
  }

  /** Deletes the credential (no id: the sandbox's); it stops working at once. */
  remove(teamId: string, sandboxId: string, accessId?: string): void {
    const record = this.find(teamId, sandboxId, accessId);
    if (!this.store.sshAccess.delete(record.id)) throw new NotFound('SSH access', record.id);
    this.events.emit('revoked', record.id);
  }

  /**
   * For the gateway: the credential when the pair is right and not expired, else null. An
   * unknown id costs the same scrypt work as a known one, so timing does not reveal ids.
   */
  async authenticate(accessId: string, password: string): Promise<SshAccessRecord | null> {
    const record = accessId.length <= 128 ? this.store.sshAccess.get(accessId) : undefined;
    if (!record) {
      this.dummyHash ??= hashPassword(generatePassword());
      await verifyPassword(password, await this.dummyHash);
      return null;
    }
    const matches = await verifyPassword(password, record.password_hash);
    // Read again: the credential may have been deleted or rotated while scrypt ran.
    const current = this.store.sshAccess.get(accessId);
    if (!matches || !current || current.password_hash !== record.password_hash || this.expired(current)) return null;
    return current;
  }

  private sandbox(teamId: string, sandboxId: string): void {
    const sandbox = this.store.sandboxes.forTeam(teamId, sandboxId);
    if (!sandbox || sandbox.state === 'deleting') throw new NotFound('Sandbox', sandboxId);
  }

  private find(teamId: string, sandboxId: string, accessId: string | undefined): SshAccessRecord {
    this.sandbox(teamId, sandboxId);
    if (accessId === undefined) {
      const current = this.store.sshAccess.forSandbox(sandboxId);
      if (!current) throw new NotFound('SSH access for sandbox', sandboxId);
      return current;
    }
    const record = this.store.sshAccess.get(accessId);
    // Another sandbox's (or team's) credential is as unknown as a made-up id.
    if (!record || record.sandbox_id !== sandboxId || record.team_id !== teamId) {
      throw new NotFound('SSH access', accessId);
    }
    return record;
  }

  private expiresAt(now: number): string {
    return new Date(now + this.options.ttlSeconds * 1000).toISOString();
  }

  private expired(record: SshAccessRecord): boolean {
    return this.now() >= Date.parse(record.expires_at);
  }

  private view(record: SshAccessRecord, password: string, requestHost?: string | null): SshAccess {
    return {
      id: record.id,
      sandbox_id: record.sandbox_id,
      password,
      expires_at: record.expires_at,
      created_at: record.created_at,
      updated_at: record.updated_at,
      ssh_command: this.sshCommand(record.id, requestHost),
    };
  }
}

/** The service as configured by the environment (SHOAL_SSH_TTL, SHOAL_SSH_PORT, SHOAL_PUBLIC_HOST). */
export function createSshAccessService(store: Store): SshAccessService {
  return new SshAccessService(store, {
    ttlSeconds: sshTtlSecondsFromEnv(),
    publicHost: loadConfig().publicHost,
    configuredPort: sshPortFromEnv(),
  });
}
