import fs from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';

export const PROJECT_ROOT = path.resolve(__dirname, '../..');
export const DEFAULT_IMAGE = process.env.SHOAL_DEFAULT_IMAGE ?? 'shoal-snapshot:debian-bookworm';

export function nextDistDir(): string {
  return path.join(PROJECT_ROOT, process.env.SHOAL_NEXT_DIST_DIR || '.next');
}

/**
 * Fails loudly, with the command that fixes it, when something the integration suite needs is
 * missing. Nothing is skipped silently.
 */
export async function checkPrerequisites(): Promise<void> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch {
    throw new Error('The Docker engine is unreachable. Run `make setup` (installs and starts it) and try again.');
  }
  try {
    await docker.getImage(DEFAULT_IMAGE).inspect();
  } catch {
    throw new Error(`The snapshot image ${DEFAULT_IMAGE} is missing. Run \`make setup\` to build it.`);
  }
  if (!fs.existsSync(path.join(nextDistDir(), 'BUILD_ID'))) {
    throw new Error('The app is not built. Run `npm run build` (make test does it for you).');
  }
}
