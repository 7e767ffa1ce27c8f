import type { Db } from './db';

export interface UserRecord {
  id: string;
  team_id: string;
  email: string;
  password_hash: string;
  created_at: string;
}

export class UsersRepository {
  constructor(private readonly db: Db) {}

  insert(user: UserRecord): void {
    this.db
      .prepare(
        'INSERT INTO users (id, team_id, email, password_hash, created_at) VALUES (@id, @team_id, @email, @password_hash, @created_at)',
      )
      .run(user);
  }

  byEmail(email: string): UserRecord | undefined {
    return this.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRecord | undefined;
  }

  get(id: string): UserRecord | undefined {
    return this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRecord | undefined;
  }

  setPasswordHash(id: string, passwordHash: string): void {
    this.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, id);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }
}
