import { describe, expect, it } from 'vitest';
import { EgressFirewall, parseTaggedRules, restoreScript, sandboxRules, type Run, type TaggedRule } from './firewall';

const PORTS = { http: 4001, tls: 4002, dnsUdp: 4003, dnsTcp: 4004 };
const GATEWAY = '172.19.0.1';

describe('sandboxRules', () => {
  const rules = sandboxRules(
    { sandboxId: 'sbx-aaaaaaaaaaaa', address: '172.19.0.5', cidrs: ['10.0.0.0/8'] },
    PORTS,
    GATEWAY,
  );

  it('sends DNS to the responder before letting allowed CIDRs through, then 80/443 to the proxy', () => {
    expect(rules.nat).toEqual([
      '-A SHOAL-EGRESS-NAT -s 172.19.0.5/32 -p udp -m udp --dport 53 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j REDIRECT --to-ports 4003',
      '-A SHOAL-EGRESS-NAT -s 172.19.0.5/32 -p tcp -m tcp --dport 53 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j REDIRECT --to-ports 4004',
      '-A SHOAL-EGRESS-NAT -s 172.19.0.5/32 -d 10.0.0.0/8 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j RETURN',
      '-A SHOAL-EGRESS-NAT -s 172.19.0.5/32 -p tcp -m tcp --dport 80 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j REDIRECT --to-ports 4001',
      '-A SHOAL-EGRESS-NAT -s 172.19.0.5/32 -p tcp -m tcp --dport 443 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j REDIRECT --to-ports 4002',
    ]);
  });

  it('accepts only the proxy and DNS ports on the gateway, and the allowed CIDRs', () => {
    expect(rules.filter).toEqual([
      '-A SHOAL-EGRESS-IN -s 172.19.0.5/32 -d 172.19.0.1/32 -p tcp -m multiport --dports 4001,4002,4004 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j ACCEPT',
      '-A SHOAL-EGRESS-IN -s 172.19.0.5/32 -d 172.19.0.1/32 -p udp -m udp --dport 4003 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j ACCEPT',
      '-A SHOAL-EGRESS-IN -s 172.19.0.5/32 -d 10.0.0.0/8 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j ACCEPT',
      '-A SHOAL-EGRESS-FWD -s 172.19.0.5/32 -d 10.0.0.0/8 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j ACCEPT',
    ]);
  });
});

describe('parseTaggedRules', () => {
  it('finds sandbox rules with their address and skips base and foreign rules', () => {
    const output = [
      '-N SHOAL-EGRESS-IN',
      '-A SHOAL-EGRESS-IN -s 172.19.0.5/32 -d 10.0.0.0/8 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j ACCEPT',
      '-A SHOAL-EGRESS-IN -i shoal-egress0 -m comment --comment "shoal:egress-base" -j REJECT',
      '-A SHOAL-EGRESS-IN -s 172.19.0.6/32 -m comment --comment someone-else -j ACCEPT',
    ].join('\n');
    expect(parseTaggedRules('filter', output)).toEqual([
      {
        table: 'filter',
        sandboxId: 'sbx-aaaaaaaaaaaa',
        address: '172.19.0.5',
        line: '-A SHOAL-EGRESS-IN -s 172.19.0.5/32 -d 10.0.0.0/8 -m comment --comment "shoal:sbx-aaaaaaaaaaaa" -j ACCEPT',
      },
    ]);
  });
});

describe('restoreScript', () => {
  const desired = sandboxRules({ sandboxId: 'sbx-a', address: '172.19.0.5', cidrs: [] }, PORTS, GATEWAY);
  const installed = (set: { nat: string[]; filter: string[] }): TaggedRule[] => [
    ...set.nat.map((line) => ({ table: 'nat' as const, sandboxId: 'sbx-a', address: '172.19.0.5', line })),
    ...set.filter.map((line) => ({ table: 'filter' as const, sandboxId: 'sbx-a', address: '172.19.0.5', line })),
  ];

  it('is null when the installed rules already match', () => {
    expect(restoreScript(installed(desired), desired)).toBeNull();
  });

  it('swaps old for new in one transaction per table', () => {
    const newer = sandboxRules(
      { sandboxId: 'sbx-a', address: '172.19.0.5', cidrs: [] },
      { ...PORTS, http: 5001 },
      GATEWAY,
    );
    const script = restoreScript(installed(desired), newer)!;
    const lines = script.trim().split('\n');
    expect(lines[0]).toBe('*nat');
    expect(lines.filter((line) => line.startsWith('-D SHOAL-EGRESS-NAT'))).toHaveLength(desired.nat.length);
    expect(lines.filter((line) => line.startsWith('-A SHOAL-EGRESS-NAT'))).toEqual(newer.nat);
    expect(lines.filter((line) => line === 'COMMIT')).toHaveLength(2);
  });

  it('deletes everything when nothing is desired', () => {
    const script = restoreScript(installed(desired), { nat: [], filter: [] })!;
    expect(script.split('\n').filter((line) => line.startsWith('-A'))).toEqual([]);
    expect(script.split('\n').filter((line) => line.startsWith('-D'))).toHaveLength(
      desired.nat.length + desired.filter.length,
    );
  });
});

/** An iptables stand-in: chains as arrays of rule specs, driven through the same argv. */
function fakeIptables(): { run: Run; chains: Map<string, string[]>; calls: string[][] } {
  const chains = new Map<string, string[]>();
  const calls: string[][] = [];
  const key = (family: string, table: string, chain: string) => `${family}/${table}/${chain}`;
  const run: Run = async (file, args, stdin) => {
    calls.push([file, ...args]);
    if (file === 'iptables-restore') {
      let table = 'filter';
      for (const line of (stdin ?? '').split('\n')) {
        if (line.startsWith('*')) table = line.slice(1);
        const match = /^-(A|D) (\S+) (.*)$/.exec(line);
        if (!match) continue;
        const rules = chains.get(key('iptables', table, match[2])) ?? [];
        if (match[1] === 'A') rules.push(match[3]);
        else {
          const index = rules.indexOf(match[3]);
          if (index < 0) throw new Error('Bad rule (does a matching rule exist in that chain?)');
          rules.splice(index, 1);
        }
        chains.set(key('iptables', table, match[2]), rules);
      }
      return '';
    }
    const [, , table, action, chain, ...rest] = args; // -w -t <table> <action> <chain> …
    const k = key(file, table, chain);
    if (action === '-S')
      return [`-N ${chain}`, ...(chains.get(k) ?? []).map((spec) => `-A ${chain} ${spec}`)].join('\n');
    if (action === '-N') {
      if (chains.has(k)) throw new Error('Chain already exists.');
      chains.set(k, []);
      return '';
    }
    const rules = chains.get(k) ?? [];
    if (action === '-I') {
      rules.splice(Number(rest[0]) - 1, 0, rest.slice(1).join(' '));
      chains.set(k, rules);
      return '';
    }
    const index = rules.indexOf(rest.join(' '));
    if (action === '-C' && index < 0) throw new Error('Bad rule');
    if (action === '-D') rules.splice(index, 1);
    return '';
  };
  return { run, chains, calls };
}

describe('EgressFirewall', () => {
  it('puts the jump before the reject at the top of INPUT and DOCKER-USER, once', async () => {
    const fake = fakeIptables();
    fake.chains.set('iptables/filter/INPUT', ['-j ACCEPT-SOMETHING']);
    const firewall = new EgressFirewall(fake.run, 'shoal-egress0');
    await firewall.ensureBase();
    await firewall.ensureBase();
    const input = fake.chains.get('iptables/filter/INPUT')!;
    expect(input).toHaveLength(3);
    expect(input[0]).toMatch(/-i shoal-egress0 .* -j SHOAL-EGRESS-IN$/);
    expect(input[1]).toMatch(/-i shoal-egress0 .* -j REJECT/);
    expect(fake.chains.get('iptables/filter/DOCKER-USER')![0]).toMatch(/-j SHOAL-EGRESS-FWD$/);
    expect(fake.chains.get('iptables/nat/PREROUTING')![0]).toMatch(/-j SHOAL-EGRESS-NAT$/);
    expect(fake.chains.get('ip6tables/filter/FORWARD')![0]).toMatch(/-j DROP$/);
  });

  it('replaces one sandbox’s rules without touching another’s, and removes them', async () => {
    const fake = fakeIptables();
    const firewall = new EgressFirewall(fake.run);
    const a = sandboxRules({ sandboxId: 'sbx-a', address: '172.19.0.5', cidrs: [] }, PORTS, GATEWAY);
    const b = sandboxRules({ sandboxId: 'sbx-b', address: '172.19.0.6', cidrs: ['10.0.0.0/8'] }, PORTS, GATEWAY);
    await firewall.replace('sbx-a', a);
    await firewall.replace('sbx-b', b);
    const a2 = sandboxRules({ sandboxId: 'sbx-a', address: '172.19.0.5', cidrs: ['192.168.1.0/24'] }, PORTS, GATEWAY);
    await firewall.replace('sbx-a', a2);
    const current = await firewall.current();
    expect(current.filter((rule) => rule.sandboxId === 'sbx-a').map((rule) => rule.line)).toEqual([
      ...a2.nat,
      ...a2.filter,
    ]);
    expect(current.filter((rule) => rule.sandboxId === 'sbx-b').map((rule) => rule.line)).toEqual([
      ...b.nat,
      ...b.filter,
    ]);
    const restores = fake.calls.filter((call) => call[0] === 'iptables-restore').length;
    await firewall.replace('sbx-a', a2); // unchanged: no write
    expect(fake.calls.filter((call) => call[0] === 'iptables-restore').length).toBe(restores);
    await firewall.replace('sbx-a', null);
    expect((await firewall.current()).map((rule) => rule.sandboxId)).not.toContain('sbx-a');
  });

  it('clears leftovers of an earlier sandbox that held the same address', async () => {
    const fake = fakeIptables();
    const firewall = new EgressFirewall(fake.run);
    const old = sandboxRules({ sandboxId: 'sbx-old', address: '172.19.0.5', cidrs: ['10.0.0.0/8'] }, PORTS, GATEWAY);
    await firewall.replace('sbx-old', old);
    const fresh = sandboxRules({ sandboxId: 'sbx-new', address: '172.19.0.5', cidrs: [] }, PORTS, GATEWAY);
    await firewall.replace('sbx-new', fresh, '172.19.0.5');
    const current = await firewall.current();
    expect(new Set(current.map((rule) => rule.sandboxId))).toEqual(new Set(['sbx-new']));
    expect(current.some((rule) => rule.line.includes('10.0.0.0/8'))).toBe(false);
  });
});
