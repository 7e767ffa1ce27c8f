import { describe, expect, it } from 'vitest';
import { authorizeCredentials } from '../auth/next-auth-options';
import { hashPassword, verifyPassword } from '../auth/passwords';
import { hasCode } from '../errors';
import { replaceSingleton } from '../registry';
import type { Store } from '../store';
import type { UserRecord } from '../store/users';
import { AccountService } from './account';

async function fakeStore(password: string): Promise<{ store: Store; user: UserRecord }> {
  const user: UserRecord = {
    id: 'usr-1',
    team_id: 'team-1',
    email: 'ada@example.com',
    password_hash: await hashPassword(password),
    created_at: new Date().toISOString(),
  };
  const users = {
    get: (id: string) => (id === user.id ? user : undefined),
    byEmail: (email: string) => (email === user.email ? user : undefined),
    setPasswordHash: (_id: string, hash: string) => {
      user.password_hash = hash;
    },
  };
  return { store: { users } as unknown as Store, user };
}

describe('AccountService.changePassword', () => {
  it('replaces the hash when the current password is right', async () => {
    const { store, user } = await fakeStore('old password');
    await new AccountService(store).changePassword('usr-1', 'old password', 'new password');
    expect(await verifyPassword('new password', user.password_hash)).toBe(true);
    expect(await verifyPassword('old password', user.password_hash)).toBe(false);
  });

  it('refuses a wrong current password (permission denied) and keeps the old one', async () => {
    const { store, user } = await fakeStore('old password');
    const error = await new AccountService(store).changePassword('usr-1', 'guess', 'new password').catch((e) => e);
    expect(hasCode(error, 'permission_denied')).toBe(true);
    expect(await verifyPassword('old password', user.password_hash)).toBe(true);
  });

  it('refuses callers without a user (API keys)', async () => {
    const { store } = await fakeStore('old password');
    const error = await new AccountService(store)
      .changePassword(undefined, 'old password', 'x'.repeat(8))
      .catch((e) => e);
    expect(hasCode(error, 'bad_request')).toBe(true);
  });
});

describe('authorizeCredentials (the sign-in check)', () => {
  it('accepts the right email and password and carries the team into the session', async () => {
    const { store } = await fakeStore('secret password');
    replaceSingleton('store', store);
    expect(await authorizeCredentials('ada@example.com', 'secret password')).toEqual({
      id: 'usr-1',
      email: 'ada@example.com',
      teamId: 'team-1',
    });
    expect(await authorizeCredentials('ada@example.com', 'wrong')).toBeNull();
    expect(await authorizeCredentials('eve@example.com', 'secret password')).toBeNull();
    expect(await authorizeCredentials(undefined, undefined)).toBeNull();
  });
});
