import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import next from 'next';
import { normaliseApiPath } from './api-path';
import { loadConfig } from './config';
import { log } from './log';
import { getRuntime } from './runtime';
import { persistentSecret } from './secrets';
import { apiKeyService, sandboxService } from './services';
import { bootstrap, type FirstStartSecrets } from './services/bootstrap';
import { getStore } from './store';
import { upgradeHandlers } from './ws/upgrade-routes';
import { features } from './features';

const config = loadConfig();
process.env.NEXTAUTH_SECRET ??= persistentSecret(config.dataDir, 'auth-secret');
// Sign-in works on whatever host name the browser used (localhost, a LAN name…).
process.env.AUTH_TRUST_HOST ??= 'true';

function printFirstStart(url: string, secrets: FirstStartSecrets): void {
  const lines = [`Shoal is running at ${url}`];
  if (secrets.adminPassword) lines.push(`  Admin login:  ${secrets.adminEmail} / ${secrets.adminPassword}`);
  else
    lines.push(
      `  Admin login:  ${secrets.adminEmail} (lost the password? npm run users -- set-password ${secrets.adminEmail})`,
    );
  if (secrets.apiKey) lines.push(`  API key:      ${secrets.apiKey}`, '  (shown once: save them now)');
  // stdout, not the log: these are shown to the person who started Shoal, exactly once.
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const store = getStore();
  const runtime = getRuntime();
  await runtime
    .ping()
    .catch(() => log.warn('the Docker engine is unreachable; sandbox routes answer 503 until it is up'));
  const secrets = await bootstrap(store, runtime, apiKeyService(), config);

  let ready: (() => void) | null = null;
  const nextReady = new Promise<void>((resolve) => (ready = resolve));
  let handle: ReturnType<ReturnType<typeof next>['getRequestHandler']> | null = null;
  let nextUpgrade:
    ((req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => Promise<void>) | null = null;

  const server = http.createServer((request, response) => {
    request.url = normaliseApiPath(request.url ?? '/');
    const serve = () => handle!(request, response);
    if (handle) void serve();
    else void nextReady.then(serve);
  });
  const dispatchUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    request.url = normaliseApiPath(request.url ?? '/');
    if (upgradeHandlers.some((handler) => handler(request, socket, head))) return;
    if (nextUpgrade) void nextUpgrade(request, socket, head);
    else socket.destroy();
  };
  // Next's request handler adds an 'upgrade' listener of its own to this server on the first
  // request, and that listener ends upgrades whose path matches an app route (ours do, through
  // the API catch-all). Upgrades therefore go to this dispatcher alone, never to listeners.
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event !== 'upgrade') return emit(event, ...args);
    dispatchUpgrade(args[0] as http.IncomingMessage, args[1] as Duplex, args[2] as Buffer);
    return true;
  }) as typeof server.emit;
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const app = next({ dev: config.dev, dir: path.resolve(__dirname, '..'), hostname: 'localhost', port });
  await app.prepare();
  handle = app.getRequestHandler();
  nextUpgrade = app.getUpgradeHandler();
  ready!();

  for (const feature of features) await feature.start({ config, httpServer: server });

  const sandboxes = sandboxService();
  const reconcile = () => sandboxes.reconcile().catch((error) => log.error('reconcile failed', { error }));
  await reconcile();
  const timer = setInterval(reconcile, config.reconcileIntervalMs);

  printFirstStart(`http://localhost:${port}`, secrets);

  const shutdown = async (signal: string) => {
    log.info('shutting down; sandboxes keep running', { signal });
    clearInterval(timer);
    await Promise.all(features.map((feature) => Promise.resolve(feature.stop?.()).catch(() => undefined)));
    server.close();
    server.closeAllConnections();
    store.db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

process.on('unhandledRejection', (error) => log.error('unhandled rejection', { error }));
process.on('uncaughtException', (error) => log.error('uncaught exception', { error }));

main().catch((error) => {
  log.error('Shoal failed to start', { error });
  process.exit(1);
});
