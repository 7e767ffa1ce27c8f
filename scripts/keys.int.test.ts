import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../server/testing/prerequisites';
import { startShoal, type ShoalServer } from '../server/testing/shoal-server';

const run = promisify(execFile);

describe('npm run keys', () => {
  let shoal: ShoalServer;
  beforeAll(async () => {
    shoal = await startShoal();
  });
  afterAll(async () => {
    await shoal?.stop();
  });

  async function keys(...args: string[]) {
    return run('npx', ['tsx', 'scripts/keys.ts', ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, SHOAL_DATA_DIR: shoal.dataDir },
    });
  }

  it('creates a key the running server accepts, and revokes it so the server refuses it', async () => {
    const created = await keys('create', 'from-cli');
    const key = created.stdout.trim();
    expect(key).toMatch(/^sk_/);
    const accepted = await shoal.request('GET', '/v1/sandboxes', { headers: { authorization: `Bearer ${key}` } });
    expect(accepted.status).toBe(200);

    const listed = await keys('list');
    const line = listed.stdout.split('\n').find((l) => l.includes('from-cli'))!;
    expect(line).toContain('active');
    expect(listed.stdout).not.toContain(key);
    await keys('revoke', line.split(/\s+/)[0]);

    const refused = await shoal.request('GET', '/v1/sandboxes', { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(401);
  });

  it('sets a forgotten password with npm run users, which then signs in', async () => {
    const { stdout } = await run('npx', ['tsx', 'scripts/users.ts', 'set-password', 'admin@localhost'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, SHOAL_DATA_DIR: shoal.dataDir },
    });
    const password = /New password of admin@localhost: (\S+)/.exec(stdout)?.[1];
    expect(password).toBeTruthy();
    const csrf = await fetch(`${shoal.url}/api/auth/csrf`);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const signIn = await fetch(`${shoal.url}/api/auth/callback/credentials`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: csrf.headers
          .getSetCookie()
          .map((cookie) => cookie.split(';')[0])
          .join('; '),
      },
      body: new URLSearchParams({ csrfToken, email: 'admin@localhost', password: password!, json: 'true' }),
    });
    expect(signIn.headers.get('set-cookie') ?? '').toContain('next-auth.session-token=');
    await expect(
      run('npx', ['tsx', 'scripts/users.ts', 'set-password', 'nobody@example.com'], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, SHOAL_DATA_DIR: shoal.dataDir },
      }),
    ).rejects.toMatchObject({ code: 1 });
  });

  it('explains its usage on a bad command', async () => {
    await expect(keys('explode')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage') });
  });
});
