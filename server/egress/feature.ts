import fs from 'node:fs';
import path from 'node:path';
import { hasCode } from '../errors';
import type { ServerFeature } from '../features';
import { log } from '../log';
import { getRuntime } from '../runtime';
import { sandboxService } from '../services';
import { getStore } from '../store';
import { CaStore, KeyPool } from './ca';
import { EgressDns } from './dns';
import { EgressEnforcer, UnavailableEgress } from './enforcer';
import { EgressFirewall, execRun } from './firewall';
import { registerEgressHook } from './hook';
import { EgressProxy } from './proxy';
import { parseHostsOverride, UpstreamResolver } from './resolver';

const RETRY_MS = 5000;

let stopActions: Array<() => Promise<void> | void> = [];
let retryTimer: NodeJS.Timeout | null = null;

/**
 * Test hooks, read once at start (documented in the README):
 * - SHOAL_EGRESS_HOSTS_OVERRIDE=`name=ipv4[:port],…` pins names to addresses for the proxy and
 *   the DNS responder (a local test server stands in for a real domain).
 * - SHOAL_EGRESS_EXTRA_CA_FILE=<pem file> is trusted for upstream TLS beside Node's roots.
 */
function testHooks(): { overrides: ReturnType<typeof parseHostsOverride>; extraCa?: string } {
  const overrides = parseHostsOverride(process.env.SHOAL_EGRESS_HOSTS_OVERRIDE);
  const caFile = process.env.SHOAL_EGRESS_EXTRA_CA_FILE;
  return { overrides, extraCa: caFile ? fs.readFileSync(caFile, 'utf8') : undefined };
}

async function startEnforcement(dataDir: string): Promise<void> {
  const runtime = getRuntime();
  const probe = new EgressFirewall(execRun);
  try {
    await probe.check();
  } catch (error) {
    const reason = `iptables is not usable on this host (${(error as Error).message.split('\n')[0]}); Shoal must run as root next to the Docker engine`;
    log.warn('custom network policies are disabled', { reason });
    registerEgressHook(new UnavailableEgress(runtime, reason));
    return;
  }
  const network = await runtime.egressNetwork();
  const firewall = new EgressFirewall(execRun, network.bridge);
  await firewall.ensureBase();

  const { overrides, extraCa } = testHooks();
  const resolver = new UpstreamResolver(overrides);
  let enforcer: EgressEnforcer | null = null;
  const sessionFor = (address: string) => enforcer?.sessionFor(address);
  const proxy = new EgressProxy(sessionFor, resolver, { extraCa });
  const dns = new EgressDns((address) => sessionFor(address)?.policy, resolver);
  stopActions.push(
    () => proxy.stop(),
    () => dns.stop(),
  );
  const { httpPort, tlsPort } = await proxy.start(network.gateway);
  const { udpPort, tcpPort } = await dns.start(network.gateway);
  const store = getStore();
  // Filled on first use, not at start: servers that never see a custom policy make no keys.
  const keys = new KeyPool(2);
  enforcer = new EgressEnforcer({
    runtime,
    firewall,
    proxy,
    cas: new CaStore(path.join(dataDir, 'egress-ca'), keys),
    ports: { http: httpPort, tls: tlsPort, dnsUdp: udpPort, dnsTcp: tcpPort },
    gateway: network.gateway,
    recordOf: (id) => store.sandboxes.get(id),
  });
  const active = enforcer;
  registerEgressHook(active);
  const unsubscribe = sandboxService().onStateChange((id, state) => {
    active.onStateChange(store.sandboxes.get(id), id, state).catch((error) => {
      if (!hasCode(error, 'container_missing')) log.error('egress state change failed', { sandbox: id, error });
    });
  });
  stopActions.push(unsubscribe);
  log.info('egress enforcement ready', {
    network: network.name,
    bridge: network.bridge,
    gateway: network.gateway,
    ports: { http: httpPort, tls: tlsPort, dnsUdp: udpPort, dnsTcp: tcpPort },
  });
}

/**
 * Enforces custom network policies (server/egress): host firewall rules, the transparent
 * HTTP/TLS proxy and the DNS responder on the egress bridge. When the Docker engine is not up
 * yet it retries; custom sandboxes wait for it (and fail with 503 if it never comes).
 */
export const egressFeature: ServerFeature = {
  name: 'egress',
  async start({ config }) {
    const attempt = async () => {
      retryTimer = null;
      try {
        await startEnforcement(config.dataDir);
      } catch (error) {
        for (const action of stopActions.splice(0).reverse()) await Promise.resolve(action()).catch(() => undefined);
        if (!hasCode(error, 'runtime_unavailable')) log.error('egress enforcement failed to start', { error });
        retryTimer = setTimeout(() => void attempt(), RETRY_MS);
      }
    };
    await attempt();
  },
  async stop() {
    if (retryTimer) clearTimeout(retryTimer);
    for (const action of stopActions.splice(0).reverse()) await Promise.resolve(action()).catch(() => undefined);
    stopActions = [];
  },
};
