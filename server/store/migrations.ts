/** Numbered schema migrations. Append only: a migration that has shipped is never edited. */
export const migrations: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE teams (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id),
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id),
        name TEXT NOT NULL,
        lookup TEXT NOT NULL,
        hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX api_keys_lookup ON api_keys(lookup);
      CREATE TABLE snapshots (
        id TEXT PRIMARY KEY,
        team_id TEXT REFERENCES teams(id),
        name TEXT NOT NULL,
        image TEXT NOT NULL,
        template_id TEXT NOT NULL,
        vcpu INTEGER NOT NULL,
        memory INTEGER NOT NULL,
        disk INTEGER NOT NULL,
        mounts TEXT NOT NULL,
        network_policy TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX snapshots_name ON snapshots(name);
      CREATE TABLE sandboxes (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id),
        snapshot_id TEXT NOT NULL,
        image TEXT NOT NULL,
        template_id TEXT NOT NULL,
        vcpu INTEGER NOT NULL,
        memory INTEGER NOT NULL,
        disk INTEGER NOT NULL,
        mounts TEXT NOT NULL,
        timeout INTEGER NOT NULL,
        auto_pause INTEGER NOT NULL,
        network_policy TEXT NOT NULL,
        env_vars TEXT NOT NULL,
        state TEXT NOT NULL,
        container_id TEXT,
        created_at TEXT NOT NULL,
        last_activity_ms INTEGER NOT NULL
      );
      CREATE INDEX sandboxes_team_state ON sandboxes(team_id, state);
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE ssh_access (
        id TEXT PRIMARY KEY,
        sandbox_id TEXT NOT NULL REFERENCES sandboxes(id) ON DELETE CASCADE,
        team_id TEXT NOT NULL REFERENCES teams(id),
        password_hash TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX ssh_access_sandbox ON ssh_access(sandbox_id);
    `,
  },
];
