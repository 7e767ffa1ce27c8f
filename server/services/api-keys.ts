import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { NotFound } from '../errors';
import type { ApiKeyRecord } from '../store/api-keys';
import type { Store } from '../store';
import { newId, nowIso } from './ids';

const KEY_PREFIX = 'sk_';
/** `sk_` plus 8 characters: enough to find the row, far too little to guess the key. */
const LOOKUP_LENGTH = KEY_PREFIX.length + 8;

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at?: string;
}

export interface CreatedApiKey extends ApiKeyView {
  /** Shown once; only its hash is stored. */
  key: string;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function view(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record.id,
    name: record.name,
    prefix: record.lookup,
    created_at: record.created_at,
    ...(record.revoked_at ? { revoked_at: record.revoked_at } : {}),
  };
}

export class ApiKeyService {
  constructor(private readonly store: Store) {}

  /** Stores `key` (a given one, or 32 fresh random bytes) for the team. */
  create(teamId: string, name: string, key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`): CreatedApiKey {
    const record: ApiKeyRecord = {
      id: newId('key'),
      team_id: teamId,
      name,
      lookup: key.slice(0, LOOKUP_LENGTH),
      hash: sha256(key).toString('hex'),
      created_at: nowIso(),
      revoked_at: null,
    };
    this.store.apiKeys.insert(record);
    return { ...view(record), key };
  }

  /** Whether this exact key is already stored (used for SHOAL_API_KEY at start). */
  exists(key: string): boolean {
    return this.verify(key) !== null;
  }

  /** The key's record when it is valid; hashes are compared in constant time. */
  verify(key: string): ApiKeyRecord | null {
    if (key.length < LOOKUP_LENGTH || key.length > 512) return null;
    const actual = sha256(key);
    let match: ApiKeyRecord | null = null;
    for (const candidate of this.store.apiKeys.activeByLookup(key.slice(0, LOOKUP_LENGTH))) {
      const expected = Buffer.from(candidate.hash, 'hex');
      if (expected.length === actual.length && timingSafeEqual(expected, actual)) match = candidate;
    }
    return match;
  }

  list(teamId: string): ApiKeyView[] {
    return this.store.apiKeys.listForTeam(teamId).map(view);
  }

  revoke(teamId: string, id: string): void {
    const record = this.store.apiKeys.get(id);
    if (!record || record.team_id !== teamId) throw new NotFound('API key', id);
    this.store.apiKeys.revoke(id, nowIso());
  }
}
