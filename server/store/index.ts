import { singleton } from '../registry';
import { loadConfig } from '../config';
import { ApiKeysRepository } from './api-keys';
import { openDatabase, type Db } from './db';
import { SandboxesRepository } from './sandboxes';
import { SnapshotsRepository } from './snapshots';
import { SshAccessRepository } from './ssh-access';
import { TeamsRepository } from './teams';
import { UsersRepository } from './users';

export interface Store {
  db: Db;
  teams: TeamsRepository;
  users: UsersRepository;
  apiKeys: ApiKeysRepository;
  snapshots: SnapshotsRepository;
  sandboxes: SandboxesRepository;
  sshAccess: SshAccessRepository;
}

export function createStore(dataDir: string): Store {
  const db = openDatabase(dataDir);
  return {
    db,
    teams: new TeamsRepository(db),
    users: new UsersRepository(db),
    apiKeys: new ApiKeysRepository(db),
    snapshots: new SnapshotsRepository(db),
    sandboxes: new SandboxesRepository(db),
    sshAccess: new SshAccessRepository(db),
  };
}

export function getStore(): Store {
  return singleton('store', () => createStore(loadConfig().dataDir));
}
