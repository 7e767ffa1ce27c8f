import { execFile } from 'node:child_process';

/**
 * Host firewall rules for sandboxes under a `custom` policy, through iptables (argv only, never
 * a shell). Such sandboxes sit on their own bridge (`shoal-egress0`); everything arriving from
 * that bridge is rejected unless a per-sandbox rule lets it through:
 *
 *   nat PREROUTING  -i shoal-egress0 → SHOAL-EGRESS-NAT: per sandbox address, DNS (udp/tcp 53) to
 *                   Shoal's DNS responder, allowed CIDRs untouched, tcp 80/443 to the proxy.
 *   filter INPUT    -i shoal-egress0 → SHOAL-EGRESS-IN (the proxy and DNS ports, host addresses in
 *                   allowed CIDRs), then REJECT: no other host port (Shoal's API, SSH…).
 *   filter FORWARD  DOCKER-USER -i shoal-egress0 → SHOAL-EGRESS-FWD (allowed CIDRs), then REJECT:
 *                   no other sandbox, no metadata address, nothing else.
 *
 * Every rule carries `-m comment --comment shoal:<sandboxId>` (the fixed part:
 * `shoal:egress-base`), so a sandbox's rules are found and replaced or removed exactly.
 */
export const EGRESS_BRIDGE = 'shoal-egress0';
export const CHAIN_IN = 'SHOAL-EGRESS-IN';
export const CHAIN_FWD = 'SHOAL-EGRESS-FWD';
export const CHAIN_NAT = 'SHOAL-EGRESS-NAT';
const BASE_TAG = 'shoal:egress-base';
const REJECT = ['-j', 'REJECT', '--reject-with', 'icmp-admin-prohibited'];

export interface EgressPorts {
  http: number;
  tls: number;
  dnsUdp: number;
  dnsTcp: number;
}

export interface SandboxRuleInput {
  sandboxId: string;
  /** The sandbox's address on the egress bridge. */
  address: string;
  /** Normalised CIDRs (network address / prefix). */
  cidrs: readonly string[];
}

export interface RuleSet {
  nat: string[];
  filter: string[];
}

export function tagFor(sandboxId: string): string {
  return `shoal:${sandboxId}`;
}

/**
 * A sandbox's rules as `iptables -S` prints them (so that what is installed can be compared
 * with what should be, line for line). Order matters within the nat chain: DNS first (even to
 * an allowed CIDR: names are always answered by Shoal), then allowed CIDRs, then the proxy.
 */
export function sandboxRules(input: SandboxRuleInput, ports: EgressPorts, gateway: string): RuleSet {
  const src = `-s ${input.address}/32`;
  const comment = `-m comment --comment "${tagFor(input.sandboxId)}"`;
  const nat = [
    `-A ${CHAIN_NAT} ${src} -p udp -m udp --dport 53 ${comment} -j REDIRECT --to-ports ${ports.dnsUdp}`,
    `-A ${CHAIN_NAT} ${src} -p tcp -m tcp --dport 53 ${comment} -j REDIRECT --to-ports ${ports.dnsTcp}`,
    ...input.cidrs.map((cidr) => `-A ${CHAIN_NAT} ${src} -d ${cidr} ${comment} -j RETURN`),
    `-A ${CHAIN_NAT} ${src} -p tcp -m tcp --dport 80 ${comment} -j REDIRECT --to-ports ${ports.http}`,
    `-A ${CHAIN_NAT} ${src} -p tcp -m tcp --dport 443 ${comment} -j REDIRECT --to-ports ${ports.tls}`,
  ];
  const filter = [
    `-A ${CHAIN_IN} ${src} -d ${gateway}/32 -p tcp -m multiport --dports ${ports.http},${ports.tls},${ports.dnsTcp} ${comment} -j ACCEPT`,
    `-A ${CHAIN_IN} ${src} -d ${gateway}/32 -p udp -m udp --dport ${ports.dnsUdp} ${comment} -j ACCEPT`,
    ...input.cidrs.map((cidr) => `-A ${CHAIN_IN} ${src} -d ${cidr} ${comment} -j ACCEPT`),
    ...input.cidrs.map((cidr) => `-A ${CHAIN_FWD} ${src} -d ${cidr} ${comment} -j ACCEPT`),
  ];
  return { nat, filter };
}

export interface TaggedRule {
  table: 'nat' | 'filter';
  sandboxId: string;
  /** Source address the rule matches (every sandbox rule has one). */
  address: string | null;
  /** The `-A …` line as `iptables -S` printed it. */
  line: string;
}

/** Sandbox rules in `iptables -S` output (base rules and foreign rules are skipped). */
export function parseTaggedRules(table: 'nat' | 'filter', output: string): TaggedRule[] {
  const rules: TaggedRule[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('-A ')) continue;
    const tag = /--comment "?shoal:([A-Za-z0-9_-]+)"?/.exec(line)?.[1];
    if (!tag || `shoal:${tag}` === BASE_TAG) continue;
    const address = /(?:^| )-s (\d+\.\d+\.\d+\.\d+)\/32(?: |$)/.exec(line)?.[1] ?? null;
    rules.push({ table, sandboxId: tag, address, line });
  }
  return rules;
}

/** Runs a program with argv (no shell); resolves with stdout, rejects with stderr in the message. */
export type Run = (file: string, args: string[], stdin?: string) => Promise<string>;

export const execRun: Run = (file, args, stdin) =>
  new Promise((resolve, reject) => {
    const child = execFile(file, args, { timeout: 20_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')}: ${String(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
    if (stdin !== undefined) child.stdin?.end(stdin);
  });

interface BaseRule {
  family: 'iptables' | 'ip6tables';
  table: 'filter' | 'nat';
  chain: string;
  spec: string[];
}

function baseRules(bridge: string): BaseRule[] {
  const tag = ['-m', 'comment', '--comment', BASE_TAG];
  const from = ['-i', bridge];
  // Listed in the order they must appear at the top of their chain.
  return [
    { family: 'iptables', table: 'nat', chain: 'PREROUTING', spec: [...from, ...tag, '-j', CHAIN_NAT] },
    { family: 'iptables', table: 'filter', chain: 'INPUT', spec: [...from, ...tag, '-j', CHAIN_IN] },
    { family: 'iptables', table: 'filter', chain: 'INPUT', spec: [...from, ...tag, ...REJECT] },
    { family: 'iptables', table: 'filter', chain: 'DOCKER-USER', spec: [...from, ...tag, '-j', CHAIN_FWD] },
    { family: 'iptables', table: 'filter', chain: 'DOCKER-USER', spec: [...from, ...tag, ...REJECT] },
    // The bridge has no IPv6 addresses and Docker disables IPv6 in the containers; belt and braces.
    { family: 'ip6tables', table: 'filter', chain: 'INPUT', spec: [...from, ...tag, '-j', 'DROP'] },
    { family: 'ip6tables', table: 'filter', chain: 'FORWARD', spec: [...from, ...tag, '-j', 'DROP'] },
  ];
}

export class EgressFirewall {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly run: Run = execRun,
    readonly bridge = EGRESS_BRIDGE,
  ) {}

  /** One change at a time within this process (iptables-restore is atomic per call across processes). */
  private serial<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.queue.then(operation, operation);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Throws, saying why, when iptables cannot be used here (not installed, not root, no Docker chains). */
  async check(): Promise<void> {
    await this.run('iptables', ['--version']);
    await this.run('iptables', ['-w', '-S', 'DOCKER-USER']);
    await this.run('iptables-restore', ['--version']);
  }

  /** Creates the chains and the jumps and default rejects for the bridge, idempotently. */
  ensureBase(): Promise<void> {
    return this.serial(async () => {
      for (const [table, chain] of [
        ['filter', CHAIN_IN],
        ['filter', CHAIN_FWD],
        ['nat', CHAIN_NAT],
      ] as const) {
        await this.run('iptables', ['-w', '-t', table, '-N', chain]).catch((error: Error) => {
          if (!/exists/i.test(error.message)) throw error;
        });
      }
      const rules = baseRules(this.bridge);
      // Inserted bottom-up at position 1 so they end up in the listed order above everything else.
      const byChain = new Map<string, BaseRule[]>();
      for (const rule of rules) {
        const key = `${rule.family} ${rule.table} ${rule.chain}`;
        byChain.set(key, [...(byChain.get(key) ?? []), rule]);
      }
      for (const group of byChain.values()) {
        const present = await Promise.all(group.map((rule) => this.has(rule)));
        if (present.every(Boolean)) continue;
        for (const rule of group) {
          // Remove every copy first (another Shoal may have raced us), then insert in order.
          while (await this.has(rule)) await this.base(rule, '-D');
        }
        for (const rule of [...group].reverse()) {
          await this.base(rule, '-I').catch((error: Error) => {
            if (rule.family === 'iptables') throw error; // ip6tables is optional
          });
        }
      }
    });
  }

  private async has(rule: BaseRule): Promise<boolean> {
    return this.base(rule, '-C').then(
      () => true,
      () => false,
    );
  }

  private base(rule: BaseRule, action: '-C' | '-D' | '-I'): Promise<string> {
    const position = action === '-I' ? ['1'] : [];
    return this.run(rule.family, ['-w', '-t', rule.table, action, rule.chain, ...position, ...rule.spec]);
  }

  /** Every sandbox rule in Shoal's egress chains, whoever installed it. */
  async current(): Promise<TaggedRule[]> {
    const [nat, input, forward] = await Promise.all([
      this.run('iptables', ['-w', '-t', 'nat', '-S', CHAIN_NAT]),
      this.run('iptables', ['-w', '-t', 'filter', '-S', CHAIN_IN]),
      this.run('iptables', ['-w', '-t', 'filter', '-S', CHAIN_FWD]),
    ]);
    return [...parseTaggedRules('nat', nat), ...parseTaggedRules('filter', `${input}\n${forward}`)];
  }

  /**
   * Makes the sandbox's rules exactly `desired` (null: none), atomically per table: the old rules
   * and the new ones are swapped in one iptables-restore transaction, so there is no moment with
   * both or neither. A no-op when they already match. With `address`, leftover rules of other
   * sandboxes for that address are removed too.
   */
  replace(sandboxId: string, desired: RuleSet | null, address?: string): Promise<void> {
    return this.serial(async () => {
      for (let attempt = 0; ; attempt++) {
        // Rules of another sandbox for the same address are stale by definition (Docker gives an
        // address to one container at a time): they go in the same transaction.
        const existing = (await this.current()).filter(
          (rule) => rule.sandboxId === sandboxId || (address !== undefined && rule.address === address),
        );
        const script = restoreScript(existing, desired ?? { nat: [], filter: [] });
        if (!script) return;
        try {
          await this.run('iptables-restore', ['-w', '--noflush'], script);
          return;
        } catch (error) {
          // A rule we meant to delete vanished under us (another Shoal's clean-up): read again.
          if (attempt >= 2) throw error;
        }
      }
    });
  }

  /** Deletes specific rules (stale ones found by a sweep), ignoring those already gone. */
  remove(rules: TaggedRule[]): Promise<void> {
    return this.serial(async () => {
      const script = restoreScript(rules, { nat: [], filter: [] });
      if (!script) return;
      await this.run('iptables-restore', ['-w', '--noflush'], script).catch(async () => {
        for (const rule of rules) {
          await this.run(
            'iptables-restore',
            ['-w', '--noflush'],
            restoreScript([rule], { nat: [], filter: [] })!,
          ).catch(() => undefined);
        }
      });
    });
  }
}

/** The iptables-restore input that turns `existing` into `desired`, or null when they already match. */
export function restoreScript(existing: TaggedRule[], desired: RuleSet): string | null {
  let changed = false;
  const parts: string[] = [];
  for (const table of ['nat', 'filter'] as const) {
    const old = existing.filter((rule) => rule.table === table).map((rule) => rule.line);
    const wanted = desired[table];
    if (old.length === wanted.length && old.every((line, i) => line === wanted[i])) {
      continue;
    }
    changed = true;
    parts.push(`*${table}`, ...old.map((line) => `-D${line.slice(2)}`), ...wanted, 'COMMIT');
  }
  return changed ? `${parts.join('\n')}\n` : null;
}
