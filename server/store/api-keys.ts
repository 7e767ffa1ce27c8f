import type { Db } from './db';

export interface ApiKeyRecord {
  id: string;
  team_id: string;
  name: string;
  /** The first characters of the key: an index to find candidates, not a secret. */
  lookup: string;
  /** sha256 of the whole key, hex. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

export class ApiKeysRepository {
  constructor(private readonly db: Db) {}

  insert(key: ApiKeyRecord): void {
    this.db
      .prepare(
        'INSERT INTO api_keys (id, team_id, name, lookup, hash, created_at, revoked_at) VALUES (@id, @team_id, @name, @lookup, @hash, @created_at, @revoked_at)',
      )
      .run(key);
  }

  activeByLookup(lookup: string): ApiKeyRecord[] {
    return this.db
      .prepare('SELECT * FROM api_keys WHERE lookup = ? AND revoked_at IS NULL')
      .all(lookup) as ApiKeyRecord[];
  }

  activeByHash(hash: string): ApiKeyRecord | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL').get(hash) as
      ApiKeyRecord | undefined;
  }

  listForTeam(teamId: string): ApiKeyRecord[] {
    return this.db
      .prepare('SELECT * FROM api_keys WHERE team_id = ? ORDER BY created_at')
      .all(teamId) as ApiKeyRecord[];
  }

  get(id: string): ApiKeyRecord | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRecord | undefined;
  }

  revoke(id: string, at: string): boolean {
    return (
      this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes > 0
    );
  }
}
