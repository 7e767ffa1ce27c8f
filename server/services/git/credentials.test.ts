import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_HELPER, credentialArgs, PASSWORD_ENV, USERNAME_ENV } from './credentials';

/** Runs the helper the way git does: through sh, with the operation appended. */
function runHelper(operation: string, env: Record<string, string>): string {
  const script = `${CREDENTIAL_HELPER.slice(1)} ${operation}`;
  const result = spawnSync('sh', ['-c', script], {
    env: { PATH: process.env.PATH, ...env } as unknown as NodeJS.ProcessEnv,
  });
  expect(result.status).toBe(0);
  return result.stdout.toString();
}

describe('credential helper', () => {
  it('keeps the secret out of argv: only the environment carries it', () => {
    const creds = credentialArgs({ username: 'alice', password: 'top$ecret\\n"x' });
    expect(creds.args.join(' ')).not.toContain('top$ecret');
    expect(creds.args).toEqual(['-c', 'credential.helper=', '-c', `credential.helper=${CREDENTIAL_HELPER}`]);
    expect(creds.env).toEqual({ [USERNAME_ENV]: 'alice', [PASSWORD_ENV]: 'top$ecret\\n"x' });
    expect(creds.secrets).toContain('top$ecret\\n"x');
  });

  it('answers git’s get with the exact bytes of user name and password (no escape processing)', () => {
    const password = 'top$ecret\\n"x `id` $(id)';
    const out = runHelper('get', { [USERNAME_ENV]: 'alice', [PASSWORD_ENV]: password });
    expect(out).toBe(`username=alice\npassword=${password}\n`);
  });

  it('ignores store and erase, so nothing is ever saved', () => {
    expect(runHelper('store', { [USERNAME_ENV]: 'a', [PASSWORD_ENV]: 'b' })).toBe('');
    expect(runHelper('erase', { [USERNAME_ENV]: 'a', [PASSWORD_ENV]: 'b' })).toBe('');
  });

  it('adds no options without credentials, and a default user name for a lone token', () => {
    expect(credentialArgs({})).toEqual({ args: [], env: {}, secrets: [] });
    expect(credentialArgs({ password: 'tok' }).env[USERNAME_ENV]).toBe('git');
    expect(credentialArgs({ password: 'tok' }).secrets).toEqual(['tok', Buffer.from('git:tok').toString('base64')]);
  });
});
