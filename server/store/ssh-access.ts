import type { Db } from './db';

/** An SSH credential for one sandbox. The id is the SSH user name; only the password's hash is kept. */
export interface SshAccessRecord {
  id: string;
  sandbox_id: string;
  team_id: string;
  /** `scrypt$N$salt$hash` from `server/auth/passwords.ts`. */
  password_hash: string;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export class SshAccessRepository {
  constructor(private readonly db: Db) {}

  /**
   * Stores the sandbox's credential, replacing the one it had: a sandbox has at most one
   * (the table's unique index on sandbox_id says so too).
   */
  replaceForSandbox(access: SshAccessRecord): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM ssh_access WHERE sandbox_id = ?').run(access.sandbox_id);
      this.db
        .prepare(
          `INSERT INTO ssh_access (id, sandbox_id, team_id, password_hash, expires_at, created_at, updated_at)
           VALUES (@id, @sandbox_id, @team_id, @password_hash, @expires_at, @created_at, @updated_at)`,
        )
        .run(access);
    })();
  }

  get(id: string): SshAccessRecord | undefined {
    return this.db.prepare('SELECT * FROM ssh_access WHERE id = ?').get(id) as SshAccessRecord | undefined;
  }

  forSandbox(sandboxId: string): SshAccessRecord | undefined {
    return this.db.prepare('SELECT * FROM ssh_access WHERE sandbox_id = ?').get(sandboxId) as
      SshAccessRecord | undefined;
  }

  /** New password and expiry; false when the record no longer exists. */
  rotate(id: string, passwordHash: string, expiresAt: string, updatedAt: string): boolean {
    return (
      this.db
        .prepare('UPDATE ssh_access SET password_hash = ?, expires_at = ?, updated_at = ? WHERE id = ?')
        .run(passwordHash, expiresAt, updatedAt, id).changes > 0
    );
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM ssh_access WHERE id = ?').run(id).changes > 0;
  }
}
