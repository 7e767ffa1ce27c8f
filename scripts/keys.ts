/**
 * `npm run keys -- create [name]` | `list` | `revoke <key-id>`: manages the admin team's API keys
 * in the data dir (SHOAL_DATA_DIR, default ./.data). Safe while the server runs (SQLite WAL).
 */
import { loadConfig } from '../server/config';
import { ApiKeyService } from '../server/services/api-keys';
import { createStore } from '../server/store';

function usage(): never {
  process.stderr.write('usage: npm run keys -- create [name] | list | revoke <key-id>\n');
  process.exit(2);
}

const [command, argument] = process.argv.slice(2);
const store = createStore(loadConfig().dataDir);
const team = store.teams.first();
if (!team) {
  process.stderr.write('No team yet: start Shoal once (make start) so it creates the admin team.\n');
  process.exit(1);
}
const keys = new ApiKeyService(store);

switch (command) {
  case 'create': {
    const created = keys.create(team.id, argument ?? 'cli');
    process.stdout.write(`${created.key}\n`);
    process.stderr.write(`Created key ${created.id} (${created.name}); it is shown only this once.\n`);
    break;
  }
  case 'list':
    for (const key of keys.list(team.id)) {
      process.stdout.write(
        `${key.id}  ${key.prefix}…  ${key.name}  ${key.revoked_at ? `revoked ${key.revoked_at}` : 'active'}\n`,
      );
    }
    break;
  case 'revoke':
    if (!argument) usage();
    try {
      keys.revoke(team.id, argument);
      process.stdout.write(`Revoked ${argument}\n`);
    } catch (error) {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    }
    break;
  default:
    usage();
}
store.db.close();
