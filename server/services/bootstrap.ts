import type { ShoalConfig } from '../config';
import { generatePassword, hashPassword } from '../auth/passwords';
import type { SandboxRuntime } from '../runtime/types';
import { DEFAULT_NETWORK_POLICY } from '../spec/common';
import type { Store } from '../store';
import type { ApiKeyService } from './api-keys';
import { newId, nowIso } from './ids';
import { log } from '../log';

export const DEFAULT_SNAPSHOT_NAME = 'debian-bookworm';
export const DEFAULT_TEMPLATE_ID = 'system/debian:bookworm';

export interface FirstStartSecrets {
  adminEmail: string;
  adminPassword?: string;
  apiKey?: string;
}

/**
 * Makes sure the admin team, user and first API key exist, and registers the default snapshot.
 * Returns the secrets created now, to be printed once.
 */
export async function bootstrap(
  store: Store,
  runtime: SandboxRuntime,
  apiKeys: ApiKeyService,
  config: ShoalConfig,
): Promise<FirstStartSecrets> {
  const secrets: FirstStartSecrets = { adminEmail: config.adminEmail };
  let team = store.teams.first();
  if (!team) {
    team = { id: newId('team'), name: 'Default team', created_at: nowIso() };
    store.teams.insert(team);
  }
  if (!store.users.byEmail(config.adminEmail)) {
    const password = config.adminPassword ?? generatePassword();
    store.users.insert({
      id: newId('usr'),
      team_id: team.id,
      email: config.adminEmail,
      password_hash: await hashPassword(password),
      created_at: nowIso(),
    });
    if (!config.adminPassword) secrets.adminPassword = password;
    if (!config.apiKey) secrets.apiKey = apiKeys.create(team.id, 'first key').key;
  }
  if (config.apiKey && !apiKeys.exists(config.apiKey)) apiKeys.create(team.id, 'SHOAL_API_KEY', config.apiKey);

  // Registered even while the engine is down or the image not yet built: restore then answers
  // 503 or names the missing image, which says more than 'snapshot not found'.
  if (!store.snapshots.byName(DEFAULT_SNAPSHOT_NAME)) {
    store.snapshots.insert({
      id: newId('snap'),
      team_id: null,
      name: DEFAULT_SNAPSHOT_NAME,
      image: config.defaultImage,
      template_id: DEFAULT_TEMPLATE_ID,
      vcpu: 1,
      memory: 1024,
      disk: 10240,
      mounts: [],
      network_policy: DEFAULT_NETWORK_POLICY,
      created_at: nowIso(),
    });
  }
  if (!(await runtime.imageExists(config.defaultImage).catch(() => true))) {
    log.warn(`default snapshot image ${config.defaultImage} is missing; run 'make setup' to build it`);
  }
  return secrets;
}
