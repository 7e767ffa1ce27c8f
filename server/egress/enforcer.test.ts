import { describe, expect, it } from 'vitest';
import type { SandboxRuntime } from '../runtime/types';
import type { NetworkPolicy } from '../spec/common';
import type { SandboxRecord } from '../store/sandboxes';
import { execResult } from '../testing/fake-runtime';
import { sandboxRecord } from '../testing/sandbox-record';
import type { CaStore } from './ca';
import { EgressEnforcer, SANDBOX_CA_ENV, UnavailableEgress } from './enforcer';
import type { EgressFirewall, RuleSet, TaggedRule } from './firewall';
import type { EgressProxy } from './proxy';

const PORTS = { http: 4001, tls: 4002, dnsUdp: 4003, dnsTcp: 4004 };
const CUSTOM: NetworkPolicy = { mode: 'custom', allow_domains: ['deb.debian.org'], allow_cidrs: ['10.0.0.0/8'] };

function record(id: string, overrides: Partial<SandboxRecord> = {}): SandboxRecord {
  return sandboxRecord(id, { network_policy: CUSTOM, ...overrides });
}

/** Fakes that write every side effect into one ordered log. */
function setup() {
  const log: string[] = [];
  const rules = new Map<string, TaggedRule[]>();
  const addresses = new Map<string, string>(); // containerId → egress address
  const records = new Map<string, SandboxRecord>();
  const runtime = {
    async setNetworkMode(containerId: string, mode: string) {
      log.push(`network ${containerId} ${mode}`);
      if (mode === 'egress') addresses.set(containerId, `172.19.0.${addresses.size + 2}`);
      else addresses.delete(containerId);
    },
    async containerAddress(containerId: string) {
      return addresses.get(containerId) ?? null;
    },
    async egressNetworkMembers() {
      return [...addresses].map(([containerId, address]) => ({ sandboxId: containerId.slice(2), address }));
    },
    async exec(containerId: string, argv: string[], options: { stdin?: Buffer; user?: string }) {
      log.push(
        `exec ${containerId} ${argv.slice(0, 2).join(' ')} user=${options.user} stdin=${options.stdin?.toString()}`,
      );
      return execResult();
    },
  } as unknown as SandboxRuntime;
  const firewall = {
    async ensureBase() {},
    async current() {
      return [...rules.values()].flat();
    },
    async replace(sandboxId: string, desired: RuleSet | null) {
      log.push(`rules ${sandboxId} ${desired ? desired.nat.length + desired.filter.length : 0}`);
      if (!desired) rules.delete(sandboxId);
      else {
        const address = /-s (\S+)\/32/.exec(desired.nat[0])![1];
        rules.set(sandboxId, [
          ...desired.nat.map((line) => ({ table: 'nat' as const, sandboxId, address, line })),
          ...desired.filter.map((line) => ({ table: 'filter' as const, sandboxId, address, line })),
        ]);
      }
    },
    async remove(stale: TaggedRule[]) {
      for (const rule of stale) {
        log.push(`remove ${rule.sandboxId}`);
        rules.set(
          rule.sandboxId,
          (rules.get(rule.sandboxId) ?? []).filter((r) => r !== rule),
        );
      }
    },
  } as unknown as EgressFirewall;
  const proxy = {
    policyChanged: (id: string) => log.push(`proxy changed ${id}`),
    forgetSandbox: (id: string) => log.push(`proxy forget ${id}`),
  } as unknown as EgressProxy;
  const cas = {
    forSandbox: async (id: string) => ({ certPem: `PEM(${id})` }),
    remove: async (id: string) => void log.push(`ca remove ${id}`),
    list: async () => [...records.keys()],
  } as unknown as CaStore;
  const enforcer = new EgressEnforcer({
    runtime,
    firewall,
    proxy,
    cas,
    ports: PORTS,
    gateway: '172.19.0.1',
    recordOf: (id) => records.get(id),
  });
  return { enforcer, log, rules, addresses, records };
}

describe('EgressEnforcer', () => {
  it('on attach: a session for the address, rules for it, and the CA installed as root through stdin', async () => {
    const { enforcer, log, rules, addresses } = setup();
    addresses.set('c-sbx-a', '172.19.0.9');
    await enforcer.attach('sbx-a', 'c-sbx-a', CUSTOM);
    expect(enforcer.sessionFor('172.19.0.9')?.sandboxId).toBe('sbx-a');
    expect(enforcer.sessionFor('172.19.0.9')?.policy.allowsHost('deb.debian.org')).toBe(true);
    expect(rules.get('sbx-a')!.every((rule) => rule.address === '172.19.0.9')).toBe(true);
    expect(rules.get('sbx-a')!.some((rule) => rule.line.includes('-d 10.0.0.0/8'))).toBe(true);
    expect(log).toContain('exec c-sbx-a sh -c user=root stdin=PEM(sbx-a)');
    expect(enforcer.containerEnv()).toEqual(SANDBOX_CA_ENV);
  });

  it('entering custom moves the container to the egress bridge before its rules exist', async () => {
    const { enforcer, log } = setup();
    await enforcer.changePolicy('sbx-a', 'c-sbx-a', { mode: 'allow-all' }, CUSTOM);
    expect(log.slice(0, 2)).toEqual(['network c-sbx-a egress', 'rules sbx-a 9']);
    expect(log.some((line) => line.startsWith('exec c-sbx-a'))).toBe(true);
  });

  it('leaving custom removes the rules before the address is released', async () => {
    const { enforcer, log, rules } = setup();
    await enforcer.changePolicy('sbx-a', 'c-sbx-a', { mode: 'allow-all' }, CUSTOM);
    const address = [...rules.get('sbx-a')!][0].address!;
    log.length = 0;
    await enforcer.changePolicy('sbx-a', 'c-sbx-a', CUSTOM, { mode: 'deny-all' });
    expect(log).toEqual(['rules sbx-a 0', 'proxy forget sbx-a', 'network c-sbx-a none']);
    expect(enforcer.sessionFor(address)).toBeUndefined();
  });

  it('a custom-to-custom change swaps rules and tells the proxy, without touching the network', async () => {
    const { enforcer, log, rules } = setup();
    await enforcer.changePolicy('sbx-a', 'c-sbx-a', { mode: 'allow-all' }, CUSTOM);
    log.length = 0;
    await enforcer.changePolicy('sbx-a', 'c-sbx-a', CUSTOM, { mode: 'custom', allow_domains: ['example.org'] });
    expect(log).toEqual(['rules sbx-a 6', 'proxy changed sbx-a']);
    expect(rules.get('sbx-a')!.some((rule) => rule.line.includes('10.0.0.0/8'))).toBe(false);
  });

  it('drops the rules of a stopping sandbox and re-creates them for its new address when it runs again', async () => {
    const { enforcer, rules, addresses } = setup();
    addresses.set('c-sbx-a', '172.19.0.9');
    await enforcer.attach('sbx-a', 'c-sbx-a', CUSTOM);
    await enforcer.onStateChange(record('sbx-a', { state: 'stopping' }), 'sbx-a', 'stopping');
    expect(rules.has('sbx-a')).toBe(false);
    expect(enforcer.sessionFor('172.19.0.9')).toBeUndefined();
    addresses.set('c-sbx-a', '172.19.0.12');
    await enforcer.onStateChange(record('sbx-a'), 'sbx-a', 'running');
    expect(rules.get('sbx-a')![0].address).toBe('172.19.0.12');
    expect(enforcer.sessionFor('172.19.0.12')?.sandboxId).toBe('sbx-a');
  });

  it('sweeps: re-installs its sandboxes, removes foreign rules whose sandbox left that address, keeps live ones', async () => {
    const { enforcer, log, rules, addresses, records } = setup();
    addresses.set('c-sbx-mine', '172.19.0.2');
    addresses.set('c-sbx-theirs', '172.19.0.3');
    records.set('sbx-mine', record('sbx-mine'));
    const foreign = (sandboxId: string, address: string): TaggedRule => ({
      table: 'filter',
      sandboxId,
      address,
      line: `-A SHOAL-EGRESS-IN -s ${address}/32 x`,
    });
    rules.set('sbx-theirs', [foreign('sbx-theirs', '172.19.0.3')]); // another Shoal's live sandbox
    rules.set('sbx-gone', [foreign('sbx-gone', '172.19.0.4')]); // container removed, rules left over
    rules.set('sbx-moved', [foreign('sbx-moved', '172.19.0.3')]); // its old address, now someone else's
    await enforcer.reconcile([...records.values()]);
    expect(rules.get('sbx-mine')!.length).toBe(9);
    expect(enforcer.sessionFor('172.19.0.2')?.sandboxId).toBe('sbx-mine');
    expect(rules.get('sbx-theirs')).toHaveLength(1);
    expect(rules.get('sbx-gone')).toEqual([]);
    expect(rules.get('sbx-moved')).toEqual([]);
    expect(log.filter((line) => line.startsWith('remove')).sort()).toEqual(['remove sbx-gone', 'remove sbx-moved']);
  });

  it('re-checks an unchanged sandbox without replacing its session or disturbing the proxy', async () => {
    const { enforcer, log, addresses, records } = setup();
    addresses.set('c-sbx-a', '172.19.0.9');
    records.set('sbx-a', record('sbx-a'));
    await enforcer.attach('sbx-a', 'c-sbx-a', CUSTOM);
    const session = enforcer.sessionFor('172.19.0.9');
    log.length = 0;
    await enforcer.onStateChange(record('sbx-a'), 'sbx-a', 'running');
    await enforcer.reconcile([...records.values()]);
    expect(enforcer.sessionFor('172.19.0.9')).toBe(session);
    expect(log.filter((line) => line.startsWith('proxy'))).toEqual([]);
  });

  it('leaves alone a sandbox created after the records it was given were read', async () => {
    const { enforcer, log, rules, addresses, records } = setup();
    addresses.set('c-sbx-new', '172.19.0.7');
    records.set('sbx-new', record('sbx-new', { state: 'starting' }));
    await enforcer.attach('sbx-new', 'c-sbx-new', CUSTOM);
    await enforcer.reconcile([]); // read before sbx-new existed
    expect(enforcer.sessionFor('172.19.0.7')?.sandboxId).toBe('sbx-new');
    expect(rules.get('sbx-new')).toHaveLength(9);
    expect(log.filter((line) => line.startsWith('ca remove') || line.startsWith('remove'))).toEqual([]);
  });

  it('does not undo a policy change the store does not show yet', async () => {
    const { enforcer, rules, addresses, records } = setup();
    addresses.set('c-sbx-a', '172.19.0.9');
    records.set('sbx-a', record('sbx-a'));
    await enforcer.attach('sbx-a', 'c-sbx-a', CUSTOM);
    await enforcer.changePolicy('sbx-a', 'c-sbx-a', CUSTOM, { mode: 'allow-all' });
    // The record still says custom (the service writes it after the hook returns).
    await enforcer.reconcile([...records.values()]);
    expect(rules.has('sbx-a')).toBe(false);
    expect(addresses.has('c-sbx-a')).toBe(false);
  });
});

describe('UnavailableEgress', () => {
  it('refuses custom policies with the reason but still lets a sandbox leave one', async () => {
    const modes: string[] = [];
    const runtime = {
      setNetworkMode: async (_id: string, mode: string) => void modes.push(mode),
    } as unknown as SandboxRuntime;
    const hook = new UnavailableEgress(runtime, 'iptables missing');
    expect(() => hook.containerEnv()).toThrow(/iptables missing/);
    await expect(hook.changePolicy('s', 'c', { mode: 'allow-all' }, CUSTOM)).rejects.toMatchObject({
      code: 'runtime_unavailable',
    });
    await hook.changePolicy('s', 'c', CUSTOM, { mode: 'deny-all' });
    expect(modes).toEqual(['none']);
  });
});
