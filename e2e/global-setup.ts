import Docker from 'dockerode';

/** Fails early, with the fix, when the Docker engine or the default snapshot image is missing. */
export default async function globalSetup(): Promise<void> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch {
    throw new Error('The Docker engine is unreachable. Run `make setup` (installs and starts it) and try again.');
  }
  const image = process.env.SHOAL_DEFAULT_IMAGE ?? 'shoal-snapshot:debian-bookworm';
  try {
    await docker.getImage(image).inspect();
  } catch {
    throw new Error(`The snapshot image ${image} is missing. Run \`make setup\` to build it.`);
  }
}
