import { hasCode, RuntimeUnavailable } from '../errors';
import { log } from '../log';
import type { SandboxRuntime } from '../runtime/types';
import type { NetworkPolicy, SandboxState } from '../spec/common';
import type { SandboxRecord } from '../store/sandboxes';
import type { CaStore } from './ca';
import { sandboxRules, type EgressFirewall, type EgressPorts } from './firewall';
import type { EgressHook } from './hook';
import { compilePolicy } from './policy';
import type { EgressProxy, EgressSession } from './proxy';

/** Where the per-sandbox CA goes inside the sandbox, and the variables that point tools at it. */
export const SANDBOX_CA_PATH = '/usr/local/share/ca-certificates/shoal-egress.crt';
export const SANDBOX_CA_ENV: Readonly<Record<string, string>> = {
  SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
  REQUESTS_CA_BUNDLE: '/etc/ssl/certs/ca-certificates.crt',
  NODE_EXTRA_CA_CERTS: SANDBOX_CA_PATH,
};

/**
 * Installs the CA certificate (stdin) into the sandbox's trust store. A constant script, no
 * user values: it writes the certificate, appends it to the system bundle at once (so the very
 * next request trusts it), writes the variables for new login shells (/etc/profile.d,
 * /etc/environment), and lets update-ca-certificates rebuild the hashed directory in the
 * background (it takes most of a second and rewrites the bundle atomically, ours included).
 */
const INSTALL_CA_SCRIPT = `set -e
cert=${SANDBOX_CA_PATH}
bundle=${SANDBOX_CA_ENV.SSL_CERT_FILE}
mkdir -p "$(dirname "$cert")" "$(dirname "$bundle")"
cat > "$cert"
first=$(sed -n 2p "$cert")
if ! grep -qxF "$first" "$bundle" 2>/dev/null; then cat "$cert" >> "$bundle"; fi
${Object.entries(SANDBOX_CA_ENV)
  .map(
    ([name, value]) =>
      `line='${name}=${value}'; grep -qxF "$line" /etc/environment 2>/dev/null || echo "$line" >> /etc/environment`,
  )
  .join('\n')}
if [ -d /etc/profile.d ]; then
  printf '%s\\n' ${Object.entries(SANDBOX_CA_ENV)
    .map(([name, value]) => `'export ${name}=${value}'`)
    .join(' ')} > /etc/profile.d/shoal-egress.sh
fi
if command -v update-ca-certificates >/dev/null 2>&1; then (update-ca-certificates >/dev/null 2>&1 &); fi
`;

/** The container states in which a sandbox holds an address on the egress bridge. */
const HOLDS_ADDRESS: ReadonlySet<SandboxState> = new Set([
  'starting',
  'running',
  'paused',
  'unpausing',
  'snapshotting',
]);
const SWEEP_EVERY_MS = 10_000;

interface Entry {
  sandboxId: string;
  containerId: string;
  address: string;
  /** The policy as applied, to tell a real change from a re-check. */
  policyJson: string;
  session: EgressSession;
}

export interface EnforcerDeps {
  runtime: SandboxRuntime;
  firewall: EgressFirewall;
  proxy: EgressProxy;
  cas: CaStore;
  ports: EgressPorts;
  /** The egress bridge's gateway: where the proxy and the DNS responder listen. */
  gateway: string;
  /** The sandbox's record as stored now. */
  recordOf(sandboxId: string): SandboxRecord | undefined;
}

/**
 * Enforces custom policies: keeps, per sandbox, the firewall rules keyed by its address on the
 * egress bridge, the proxy/DNS session for that address, and its CA. Every change to one
 * sandbox runs under that sandbox's lock.
 */
export class EgressEnforcer implements EgressHook {
  private readonly bySandbox = new Map<string, Entry>();
  private readonly byAddress = new Map<string, Entry>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /**
   * Policy changes this enforcer has applied that the store may not show yet (the service writes
   * the record after the hook returns): the sweep leaves such a sandbox alone until they agree.
   */
  private readonly intended = new Map<string, { policy: string; until: number }>();
  private lastSweep = 0;
  private sweeping: Promise<void> | null = null;

  constructor(private readonly deps: EnforcerDeps) {}

  /** The proxy's and the DNS responder's view: which sandbox (and policy) is behind an address. */
  sessionFor = (address: string): EgressSession | undefined => this.byAddress.get(address)?.session;

  containerEnv(): Record<string, string> {
    return { ...SANDBOX_CA_ENV };
  }

  attach(sandboxId: string, containerId: string, policy: NetworkPolicy): Promise<void> {
    return this.locked(sandboxId, async () => {
      await this.install(sandboxId, containerId, policy);
      await this.installCa(sandboxId, containerId);
    });
  }

  changePolicy(sandboxId: string, containerId: string, from: NetworkPolicy, to: NetworkPolicy): Promise<void> {
    return this.locked(sandboxId, async () => {
      this.intended.set(sandboxId, { policy: JSON.stringify(to), until: Date.now() + 60_000 });
      try {
        if (to.mode === 'custom') {
          if (from.mode !== 'custom') {
            // Onto the egress bridge first: until its rules exist, everything from it is rejected.
            await this.deps.runtime.setNetworkMode(containerId, 'egress');
            await this.install(sandboxId, containerId, to);
            await this.installCa(sandboxId, containerId);
          } else {
            await this.install(sandboxId, containerId, to);
          }
          return;
        }
        // Leaving custom: rules go before the address is released, so nobody inherits them.
        await this.uninstall(sandboxId);
        await this.deps.runtime.setNetworkMode(containerId, to.mode === 'deny-all' ? 'none' : 'default');
      } catch (error) {
        // The record keeps the old policy; the sweep may act on it again.
        this.intended.delete(sandboxId);
        throw error;
      }
    });
  }

  detach(sandboxId: string): Promise<void> {
    return this.locked(sandboxId, async () => {
      await this.uninstall(sandboxId);
      await this.deps.cas.remove(sandboxId);
      this.intended.delete(sandboxId);
    });
  }

  /** A sandbox changed state (stop, start, delete…): its address may be gone or new. */
  onStateChange(record: SandboxRecord | undefined, sandboxId: string, state: SandboxState): Promise<void> {
    if (state === 'deleted') return this.detach(sandboxId);
    if (!record || record.network_policy.mode !== 'custom' || this.inFlight(record)) return Promise.resolve();
    if (state === 'stopping' || state === 'stopped') return this.locked(sandboxId, () => this.uninstall(sandboxId));
    if (state === 'running' && record.container_id) {
      const containerId = record.container_id;
      return this.locked(sandboxId, () => this.install(sandboxId, containerId, record.network_policy));
    }
    return Promise.resolve();
  }

  /**
   * Re-establishes every custom sandbox's rules (with this process's proxy ports, after a
   * restart) and sweeps stale ones: rules whose sandbox no longer holds that address on the
   * egress bridge, whichever Shoal installed them. The first call always runs; later ones at
   * most every few seconds.
   */
  async reconcile(records: SandboxRecord[]): Promise<void> {
    if (this.sweeping || Date.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.sweeping = this.sweep(records).finally(() => {
      this.lastSweep = Date.now();
      this.sweeping = null;
    });
    await this.sweeping;
  }

  private async sweep(records: SandboxRecord[]): Promise<void> {
    await this.deps.firewall.ensureBase();
    // Rules are read before the members: a rule seen here was installed before the read of the
    // members, so a live sandbox's rule always finds its member.
    const rules = await this.deps.firewall.current();
    const members = await this.deps.runtime.egressNetworkMembers();
    const memberAddress = new Map(members.map((member) => [member.sandboxId, member.address]));

    for (const listed of records) {
      if (listed.network_policy.mode !== 'custom' || !listed.container_id) continue;
      const address = memberAddress.get(listed.id);
      await this.locked(listed.id, async () => {
        // Read again under the lock: a policy change or a stop may have happened meanwhile.
        const record = this.deps.recordOf(listed.id);
        if (!record || record.container_id !== listed.container_id || this.inFlight(record)) return;
        if (record.network_policy.mode !== 'custom') return;
        const containerId = listed.container_id!;
        if (HOLDS_ADDRESS.has(record.state) && address) {
          await this.install(record.id, containerId, record.network_policy);
        } else if (record.state === 'running' && !address) {
          // A custom sandbox off the egress bridge (a change interrupted by a crash): move it.
          log.warn('custom sandbox was not on the egress network; moving it', { sandbox: record.id });
          await this.deps.runtime.setNetworkMode(containerId, 'egress');
          await this.install(record.id, containerId, record.network_policy);
        } else if (!HOLDS_ADDRESS.has(record.state)) {
          await this.uninstall(record.id);
        }
      }).catch((error) => {
        if (!hasCode(error, 'container_missing')) log.error('egress rules failed', { sandbox: listed.id, error });
      });
    }

    // Judged on the store now, not on `records`: a sandbox may have been created since they were read.
    const gone = (sandboxId: string) => {
      const record = this.deps.recordOf(sandboxId);
      return !record || record.state === 'deleted';
    };
    for (const sandboxId of [...this.bySandbox.keys()]) {
      await this.locked(sandboxId, async () => {
        if (gone(sandboxId)) await this.uninstall(sandboxId);
      });
    }
    // A rule is stale when its sandbox does not hold that address now, whoever installed it.
    const stale = rules.filter((rule) => memberAddress.get(rule.sandboxId) !== rule.address);
    if (stale.length > 0) {
      log.info('removing stale egress rules', { sandboxes: [...new Set(stale.map((rule) => rule.sandboxId))] });
      await this.deps.firewall.remove(stale);
    }
    for (const sandboxId of await this.deps.cas.list()) {
      if (gone(sandboxId)) await this.locked(sandboxId, () => this.deps.cas.remove(sandboxId));
    }
  }

  /** Whether a policy change for this sandbox was applied here but is not in its record yet. */
  private inFlight(record: SandboxRecord): boolean {
    const intended = this.intended.get(record.id);
    if (!intended) return false;
    if (intended.policy === JSON.stringify(record.network_policy) || intended.until < Date.now()) {
      this.intended.delete(record.id);
      return false;
    }
    return true;
  }

  // ---- per sandbox (always under its lock) --------------------------------------------------

  private async install(sandboxId: string, containerId: string, policy: NetworkPolicy): Promise<void> {
    const address = await this.deps.runtime.containerAddress(containerId);
    if (!address) throw new RuntimeUnavailable(`Sandbox '${sandboxId}' has no address on the egress network`);
    const policyJson = JSON.stringify(policy);
    const previous = this.bySandbox.get(sandboxId);
    const unchanged =
      previous?.address === address && previous.containerId === containerId && previous.policyJson === policyJson;
    // An unchanged sandbox keeps its session (and the proxy its pooled connections): only the
    // rules are checked again, which is a no-op unless someone removed them.
    const entry: Entry = unchanged
      ? previous
      : {
          sandboxId,
          containerId,
          address,
          policyJson,
          session: { sandboxId, policy: compilePolicy(policy), ca: () => this.deps.cas.forSandbox(sandboxId) },
        };
    if (previous && previous.address !== address) this.byAddress.delete(previous.address);
    // The session exists before the rules that send traffic to it.
    this.bySandbox.set(sandboxId, entry);
    this.byAddress.set(address, entry);
    await this.deps.firewall.replace(
      sandboxId,
      sandboxRules({ sandboxId, address, cidrs: entry.session.policy.cidrs }, this.deps.ports, this.deps.gateway),
      address,
    );
    if (previous && !unchanged) this.deps.proxy.policyChanged(sandboxId, entry.session.policy);
  }

  private async uninstall(sandboxId: string): Promise<void> {
    await this.deps.firewall.replace(sandboxId, null);
    const entry = this.bySandbox.get(sandboxId);
    if (entry) {
      this.bySandbox.delete(sandboxId);
      if (this.byAddress.get(entry.address) === entry) this.byAddress.delete(entry.address);
    }
    this.deps.proxy.forgetSandbox(sandboxId);
  }

  private async installCa(sandboxId: string, containerId: string): Promise<void> {
    const ca = await this.deps.cas.forSandbox(sandboxId);
    const result = await this.deps.runtime.exec(containerId, ['sh', '-c', INSTALL_CA_SCRIPT, 'sh'], {
      stdin: Buffer.from(ca.certPem),
      user: 'root',
      timeoutMs: 30_000,
    });
    if (result.exitCode !== 0) {
      // The policy is enforced regardless; only TLS through a transform will not be trusted.
      log.warn('could not install the egress CA in the sandbox', {
        sandbox: sandboxId,
        exitCode: result.exitCode,
        stderr: result.stderr.toString('utf8').slice(0, 500),
      });
    }
  }

  private async locked<T>(sandboxId: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(sandboxId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(operation);
    const tail = next.catch(() => undefined);
    this.locks.set(sandboxId, tail);
    try {
      return await next;
    } finally {
      if (this.locks.get(sandboxId) === tail) this.locks.delete(sandboxId);
    }
  }
}

/**
 * Stands in when the host firewall cannot be used (no iptables, not root): allow-all and
 * deny-all keep working, custom policies are refused with the reason rather than left open.
 */
export class UnavailableEgress implements EgressHook {
  constructor(
    private readonly runtime: SandboxRuntime,
    private readonly reason: string,
  ) {}

  private refuse(): never {
    throw new RuntimeUnavailable(`Custom network policies are unavailable: ${this.reason}`);
  }

  containerEnv(): Record<string, string> {
    return this.refuse();
  }

  async attach(): Promise<void> {
    this.refuse();
  }

  async changePolicy(_sandboxId: string, containerId: string, _from: NetworkPolicy, to: NetworkPolicy): Promise<void> {
    if (to.mode === 'custom') this.refuse();
    await this.runtime.setNetworkMode(containerId, to.mode === 'deny-all' ? 'none' : 'default');
  }

  async detach(): Promise<void> {}

  async reconcile(): Promise<void> {}
}
