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

  it('explains its usage on a bad command', async () => {
    await expect(keys('explode')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage') });
  });
});
