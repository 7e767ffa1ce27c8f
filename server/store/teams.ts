import type { Db } from './db';

export interface TeamRecord {
  id: string;
  name: string;
  created_at: string;
}

export class TeamsRepository {
  constructor(private readonly db: Db) {}

  insert(team: TeamRecord): void {
    this.db.prepare('INSERT INTO teams (id, name, created_at) VALUES (@id, @name, @created_at)').run(team);
  }

  first(): TeamRecord | undefined {
    return this.db.prepare('SELECT * FROM teams ORDER BY created_at LIMIT 1').get() as TeamRecord | undefined;
  }

  get(id: string): TeamRecord | undefined {
    return this.db.prepare('SELECT * FROM teams WHERE id = ?').get(id) as TeamRecord | undefined;
  }
}
