import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config';
import { singleton } from '../registry';
import { DockerRuntime } from './docker/docker-runtime';
import type { SandboxRuntime } from './types';

/** A random id kept in the data dir; containers are labelled with it. */
export function instanceId(dataDir: string): string {
  const file = path.join(dataDir, 'instance-id');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const id = randomBytes(6).toString('hex');
    fs.writeFileSync(file, `${id}\n`, { mode: 0o600 });
    return id;
  }
}

export function getRuntime(): SandboxRuntime {
  return singleton<SandboxRuntime>('runtime', () => {
    const config = loadConfig();
    return new DockerRuntime(instanceId(config.dataDir), config.dockerHost);
  });
}
