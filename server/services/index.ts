import { loadConfig } from '../config';
import { singleton } from '../registry';
import { getRuntime } from '../runtime';
import { getStore } from '../store';
import { ApiKeyService } from './api-keys';
import { SandboxService } from './sandboxes';
import { SnapshotService } from './snapshots';
import { createSshAccessService, type SshAccessService } from './ssh-access';

/** Service singletons, shared by the route bundles and the custom server through the registry. */
export function sandboxService(): SandboxService {
  return singleton('service.sandboxes', () => new SandboxService(getStore(), getRuntime(), loadConfig()));
}

export function snapshotService(): SnapshotService {
  return singleton('service.snapshots', () => new SnapshotService(getStore(), getRuntime()));
}

export function apiKeyService(): ApiKeyService {
  return singleton('service.api-keys', () => new ApiKeyService(getStore()));
}

export function sshAccessService(): SshAccessService {
  return singleton('service.ssh-access', () => createSshAccessService(getStore()));
}
