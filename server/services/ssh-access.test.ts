import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasCode } from '../errors';
import { createStore, type Store } from '../store';
import type { SandboxRecord } from '../store/sandboxes';
import { sandboxRecord } from '../testing/sandbox-record';
import {
  DEFAULT_SSH_PORT,
  hostNameOnly,
  SshAccessService,
  sshPortFromEnv,
  sshTtlSecondsFromEnv,
  type SshAccessOptions,
} from './ssh-access';

const TEAM = 'team-a';
const OTHER_TEAM = 'team-b';

function sandbox(id: string, teamId = TEAM, state: SandboxRecord['state'] = 'running'): SandboxRecord {
  return sandboxRecord(id, { team_id: teamId, state, container_id: 'c' });
}

async function notFound(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    expect(hasCode(error, 'not_found')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected NotFound');
}

describe('SshAccessService', () => {
  let dir: string;
  let store: Store;
  let clock: number;
  let revoked: string[];

  function service(options: Partial<SshAccessOptions> = {}): SshAccessService {
    const created = new SshAccessService(store, {
      ttlSeconds: 3600,
      configuredPort: 2222,
      now: () => clock,
      ...options,
    });
    created.onRevoked((id) => revoked.push(id));
    return created;
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-ssh-unit-'));
    store = createStore(dir);
    store.teams.insert({ id: TEAM, name: 'a', created_at: new Date().toISOString() });
    store.teams.insert({ id: OTHER_TEAM, name: 'b', created_at: new Date().toISOString() });
    store.sandboxes.insert(sandbox('sbx-1'));
    store.sandboxes.insert(sandbox('sbx-2'));
    store.sandboxes.insert(sandbox('sbx-other', OTHER_TEAM));
    store.sandboxes.insert(sandbox('sbx-gone', TEAM, 'deleted'));
    clock = Date.parse('2030-01-01T00:00:00.000Z');
    revoked = [];
  });

  afterEach(() => {
    store.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates a credential shown once, with lifetime, timestamps and a command to paste', async () => {
    const access = await service().create(TEAM, 'sbx-1', '127.0.0.1:3000');
    expect(access).toEqual({
      id: expect.stringMatching(/^ssh-[a-z0-9]{12}$/),
      sandbox_id: 'sbx-1',
      password: expect.any(String),
      expires_at: '2030-01-01T01:00:00.000Z',
      created_at: '2030-01-01T00:00:00.000Z',
      updated_at: '2030-01-01T00:00:00.000Z',
      ssh_command: `ssh -p 2222 ${access.id}@127.0.0.1`,
    });
    expect(access.password.length).toBeGreaterThanOrEqual(20);
  });

  it('stores only an scrypt hash of the password', async () => {
    const access = await service().create(TEAM, 'sbx-1');
    const row = store.sshAccess.get(access.id)!;
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain(access.password);
    const dump = JSON.stringify(store.db.prepare('SELECT * FROM ssh_access').all());
    expect(dump).not.toContain(access.password);
  });

  it('validates the right password and refuses a wrong one', async () => {
    const ssh = service();
    const access = await ssh.create(TEAM, 'sbx-1');
    expect(await ssh.validate(TEAM, 'sbx-1', access.id, access.password)).toEqual({ valid: true, sandbox_id: 'sbx-1' });
    expect(await ssh.validate(TEAM, 'sbx-1', access.id, `${access.password}x`)).toEqual({
      valid: false,
      sandbox_id: 'sbx-1',
    });
  });

  it('answers false once the credential has expired, and regen gives a fresh expiry', async () => {
    const ssh = service({ ttlSeconds: 60 });
    const access = await ssh.create(TEAM, 'sbx-1');
    clock += 59_999;
    expect((await ssh.validate(TEAM, 'sbx-1', access.id, access.password)).valid).toBe(true);
    clock += 1;
    expect((await ssh.validate(TEAM, 'sbx-1', access.id, access.password)).valid).toBe(false);
    expect(await ssh.authenticate(access.id, access.password)).toBeNull();

    const renewed = await ssh.regen(TEAM, 'sbx-1', access.id);
    expect(renewed.id).toBe(access.id);
    expect(renewed.created_at).toBe(access.created_at);
    expect(Date.parse(renewed.updated_at)).toBe(clock);
    expect(Date.parse(renewed.expires_at)).toBe(clock + 60_000);
    expect((await ssh.validate(TEAM, 'sbx-1', access.id, renewed.password)).valid).toBe(true);
  });

  it('regen replaces the password: the old one stops working', async () => {
    const ssh = service();
    const access = await ssh.create(TEAM, 'sbx-1');
    const renewed = await ssh.regen(TEAM, 'sbx-1', undefined);
    expect(renewed.password).not.toBe(access.password);
    expect((await ssh.validate(TEAM, 'sbx-1', access.id, access.password)).valid).toBe(false);
    expect(await ssh.authenticate(access.id, access.password)).toBeNull();
    expect((await ssh.authenticate(access.id, renewed.password))?.sandbox_id).toBe('sbx-1');
  });

  it('keeps one credential per sandbox: a new one replaces (and revokes) the old', async () => {
    const ssh = service();
    const first = await ssh.create(TEAM, 'sbx-1');
    const second = await ssh.create(TEAM, 'sbx-1');
    expect(second.id).not.toBe(first.id);
    expect(revoked).toEqual([first.id]);
    expect(await notFound(() => ssh.validate(TEAM, 'sbx-1', first.id, first.password))).toBe(
      `SSH access '${first.id}' not found`,
    );
    expect(await ssh.authenticate(first.id, first.password)).toBeNull();
    expect((await ssh.validate(TEAM, 'sbx-1', second.id, second.password)).valid).toBe(true);
  });

  it('deletes by id or as the sandbox’s credential; deleted ones are unknown at once', async () => {
    const ssh = service();
    const first = await ssh.create(TEAM, 'sbx-1');
    ssh.remove(TEAM, 'sbx-1', first.id);
    expect(revoked).toEqual([first.id]);
    expect(await ssh.authenticate(first.id, first.password)).toBeNull();
    await notFound(() => ssh.remove(TEAM, 'sbx-1', first.id));

    const second = await ssh.create(TEAM, 'sbx-1');
    ssh.remove(TEAM, 'sbx-1');
    expect(await ssh.authenticate(second.id, second.password)).toBeNull();
    expect(await notFound(() => ssh.remove(TEAM, 'sbx-1'))).toBe("SSH access for sandbox 'sbx-1' not found");
    await notFound(() => ssh.regen(TEAM, 'sbx-1', undefined));
  });

  it('treats another sandbox’s or another team’s credential as unknown', async () => {
    const ssh = service();
    const mine = await ssh.create(TEAM, 'sbx-1');
    const theirs = await ssh.create(OTHER_TEAM, 'sbx-other');
    await notFound(() => ssh.validate(TEAM, 'sbx-2', mine.id, mine.password));
    await notFound(() => ssh.regen(TEAM, 'sbx-2', mine.id));
    await notFound(() => ssh.remove(TEAM, 'sbx-2', mine.id));
    await notFound(() => ssh.validate(TEAM, 'sbx-1', theirs.id, theirs.password));
    // Nothing was changed by the refused calls.
    expect((await ssh.validate(TEAM, 'sbx-1', mine.id, mine.password)).valid).toBe(true);
  });

  it('answers NotFound for an unknown, deleted or other team’s sandbox', async () => {
    const ssh = service();
    expect(await notFound(() => ssh.create(TEAM, 'sbx-nope'))).toBe("Sandbox 'sbx-nope' not found");
    await notFound(() => ssh.create(TEAM, 'sbx-gone'));
    await notFound(() => ssh.create(TEAM, 'sbx-other'));
    await notFound(() => ssh.validate(TEAM, 'sbx-nope', 'ssh-x', 'pw'));
  });

  it('authenticates the gateway’s login pair only when right and unexpired', async () => {
    const ssh = service();
    const access = await ssh.create(TEAM, 'sbx-1');
    expect(await ssh.authenticate(access.id, access.password)).toMatchObject({
      id: access.id,
      sandbox_id: 'sbx-1',
      team_id: TEAM,
    });
    expect(await ssh.authenticate(access.id, 'wrong')).toBeNull();
    expect(await ssh.authenticate('ssh-unknown', access.password)).toBeNull();
    expect(await ssh.authenticate('x'.repeat(1000), access.password)).toBeNull();
  });

  it('puts SHOAL_PUBLIC_HOST, else the request’s host name, and the listening port in ssh_command', async () => {
    const ssh = service({ publicHost: 'shoal.example.com:8443' });
    expect(ssh.sshCommand('ssh-a', 'ignored:3000')).toBe('ssh -p 2222 ssh-a@shoal.example.com');
    ssh.setGatewayPort(40022);
    expect(ssh.sshCommand('ssh-a', null)).toBe('ssh -p 40022 ssh-a@shoal.example.com');

    const plain = service({ configuredPort: null });
    expect(plain.sshCommand('ssh-a', 'dev.local:3000')).toBe(`ssh -p ${DEFAULT_SSH_PORT} ssh-a@dev.local`);
    expect(plain.sshCommand('ssh-a', '[::1]:3000')).toBe(`ssh -p ${DEFAULT_SSH_PORT} ssh-a@::1`);
    expect(plain.sshCommand('ssh-a', 'evil;rm -rf /')).toBe(`ssh -p ${DEFAULT_SSH_PORT} ssh-a@localhost`);
    expect(plain.sshCommand('ssh-a', undefined)).toBe(`ssh -p ${DEFAULT_SSH_PORT} ssh-a@localhost`);
  });
});

describe('ssh settings and host names', () => {
  it('reads SHOAL_SSH_PORT: default 2222, 0 for any free port, off for none; refuses junk', () => {
    expect(sshPortFromEnv({})).toBe(2222);
    expect(sshPortFromEnv({ SHOAL_SSH_PORT: '0' })).toBe(0);
    expect(sshPortFromEnv({ SHOAL_SSH_PORT: '2022' })).toBe(2022);
    expect(sshPortFromEnv({ SHOAL_SSH_PORT: 'off' })).toBeNull();
    expect(() => sshPortFromEnv({ SHOAL_SSH_PORT: '70000' })).toThrow(/SHOAL_SSH_PORT/);
    expect(() => sshPortFromEnv({ SHOAL_SSH_PORT: 'abc' })).toThrow(/SHOAL_SSH_PORT/);
  });

  it('reads SHOAL_SSH_TTL in seconds, default 24 h; refuses zero and junk', () => {
    expect(sshTtlSecondsFromEnv({})).toBe(86_400);
    expect(sshTtlSecondsFromEnv({ SHOAL_SSH_TTL: '2' })).toBe(2);
    expect(() => sshTtlSecondsFromEnv({ SHOAL_SSH_TTL: '0' })).toThrow(/SHOAL_SSH_TTL/);
    expect(() => sshTtlSecondsFromEnv({ SHOAL_SSH_TTL: '1.5' })).toThrow(/SHOAL_SSH_TTL/);
  });

  it('reduces hosts, host:port, [v6]:port and URLs to the host name', () => {
    expect(hostNameOnly('example.com')).toBe('example.com');
    expect(hostNameOnly('example.com:3000')).toBe('example.com');
    expect(hostNameOnly('a.example, b.example')).toBe('a.example');
    expect(hostNameOnly('[fe80::1]:3000')).toBe('fe80::1');
    expect(hostNameOnly('fe80::1')).toBe('fe80::1');
    expect(hostNameOnly('https://shoal.example.com:8443/x')).toBe('shoal.example.com');
    expect(hostNameOnly('a b')).toBeUndefined();
    expect(hostNameOnly('')).toBeUndefined();
  });
});
