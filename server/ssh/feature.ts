import type { ServerFeature } from '../features';
import { log } from '../log';
import { getRuntime } from '../runtime';
import { sandboxService, sshAccessService } from '../services';
import { sshPortFromEnv, sshTtlSecondsFromEnv } from '../services/ssh-access';
import { SshGateway } from './gateway';
import { loadOrCreateHostKey } from './host-key';

let gateway: SshGateway | null = null;

/**
 * The SSH gateway inside the custom server: listens on SHOAL_SSH_PORT (default 2222, 0 = any
 * free port, `off` = none) on the HTTP server's bind address, and prints the port it got.
 */
export const sshGatewayFeature: ServerFeature = {
  name: 'ssh-gateway',
  async start({ config }) {
    sshTtlSecondsFromEnv(); // a bad SHOAL_SSH_TTL stops the start with a clear message
    const port = sshPortFromEnv();
    if (port === null) return;
    const access = sshAccessService();
    const candidate = new SshGateway({
      hostKey: loadOrCreateHostKey(config.dataDir),
      access,
      sandboxes: sandboxService(),
      runtime: getRuntime(),
    });
    try {
      const listening = await candidate.listen(port, config.host);
      gateway = candidate;
      access.setGatewayPort(listening);
      // stdout, like the start banner: whoever started Shoal (or a test harness) reads the port here.
      process.stdout.write(`SSH gateway listening on port ${listening}\n`);
    } catch (error) {
      // Shoal stays useful without SSH (another process may hold the port): say so and go on.
      log.warn('the SSH gateway could not listen; SSH logins are unavailable', { port, error });
    }
  },
  async stop() {
    await gateway?.close();
    gateway = null;
  },
};
