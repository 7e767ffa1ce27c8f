import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../store';
import { ApiKeyService } from './api-keys';

describe('ApiKeyService (real SQLite file)', () => {
  let dir: string;
  let store: Store;
  let keys: ApiKeyService;
  const teamId = 'team-test';

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-keys-'));
    store = createStore(dir);
    store.teams.insert({ id: teamId, name: 't', created_at: new Date().toISOString() });
    keys = new ApiKeyService(store);
  });
  afterEach(() => {
    store.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates sk_ keys with 32 random bytes, stores only a hash, and verifies them', () => {
    const created = keys.create(teamId, 'ci');
    expect(created.key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    const raw = fs.readFileSync(path.join(dir, 'shoal.db'));
    expect(raw.includes(Buffer.from(created.key))).toBe(false);
    expect(keys.verify(created.key)?.team_id).toBe(teamId);
    expect(keys.verify(`${created.key.slice(0, -1)}x`)).toBeNull();
    expect(keys.verify('sk_short')).toBeNull();
  });

  it('refuses a revoked key at once and lists it as revoked', () => {
    const created = keys.create(teamId, 'temp');
    keys.revoke(teamId, created.id);
    expect(keys.verify(created.key)).toBeNull();
    expect(keys.list(teamId).find((k) => k.id === created.id)?.revoked_at).toBeTruthy();
    expect(() => keys.revoke('team-other', created.id)).toThrow(/not found/);
  });

  it('stores a given key (SHOAL_API_KEY) so it authenticates', () => {
    keys.create(teamId, 'env', 'sk_given_key_for_automation_0001');
    expect(keys.exists('sk_given_key_for_automation_0001')).toBe(true);
  });
});
