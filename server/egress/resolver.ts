import dns from 'node:dns';
import net from 'node:net';
import { forbiddenReason, hostAddresses } from './addresses';

/** Why a connection was refused; the message is safe to show to the sandbox. */
export class EgressRefused extends Error {
  override name = 'EgressRefused';
  constructor(
    message: string,
    /** HTTP status the proxy answers with: 403 policy, 502 upstream unusable. */
    readonly status: 403 | 502 = 403,
  ) {
    super(message);
  }
}

export interface HostOverride {
  address: string;
  port?: number;
}

/**
 * Test hook (and an operator escape hatch): `SHOAL_EGRESS_HOSTS_OVERRIDE` maps names to a fixed
 * address and optionally a port, `name=address[:port]` separated by commas. An overridden name is
 * connected to exactly there; the operator wrote the address, so it is not screened like a DNS
 * answer would be. The policy still decides whether a sandbox may use the name at all.
 */
export function parseHostsOverride(value: string | undefined): Map<string, HostOverride> {
  const map = new Map<string, HostOverride>();
  for (const entry of (value ?? '').split(',')) {
    const trimmed = entry.trim();
    if (!trimmed) continue;
    const match = /^([A-Za-z0-9.-]+)=(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec(trimmed);
    if (!match || !net.isIPv4(match[2])) {
      throw new Error(`SHOAL_EGRESS_HOSTS_OVERRIDE: '${trimmed}' is not name=ipv4[:port]`);
    }
    map.set(match[1].toLowerCase(), { address: match[2], port: match[3] ? Number(match[3]) : undefined });
  }
  return map;
}

export interface Upstream {
  address: string;
  family: 4 | 6;
  port: number;
}

export type LookupAll = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: LookupAll = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

const CACHE_MS = 10_000;
const NEGATIVE_CACHE_MS = 2_000;

/**
 * Resolves names on the host, for the proxy and the DNS responder. The proxy connects to the
 * address this returns, never to the one the sandbox chose, so a DNS answer seen inside the
 * sandbox cannot steer a connection anywhere (no DNS rebinding). Answers are cached briefly.
 */
export class UpstreamResolver {
  private readonly cache = new Map<
    string,
    { until: number; result: Promise<Array<{ address: string; family: number }>> }
  >();

  constructor(
    private readonly overrides: Map<string, HostOverride> = new Map(),
    private readonly lookupAll: LookupAll = systemLookup,
  ) {}

  private lookup(host: string): Promise<Array<{ address: string; family: number }>> {
    const now = Date.now();
    const cached = this.cache.get(host);
    if (cached && cached.until > now) return cached.result;
    const result = this.lookupAll(host);
    const entry = { until: now + CACHE_MS, result };
    this.cache.set(host, entry);
    result.catch(() => (entry.until = now + NEGATIVE_CACHE_MS));
    if (this.cache.size > 2000) this.cache.delete(this.cache.keys().next().value!);
    return result;
  }

  /** IPv4 addresses for a DNS answer (the sandbox network is IPv4 only). Empty when unresolvable. */
  async ipv4Addresses(host: string): Promise<string[]> {
    const override = this.overrides.get(host);
    if (override) return [override.address];
    try {
      return (await this.lookup(host)).filter((entry) => entry.family === 4).map((entry) => entry.address);
    } catch {
      return [];
    }
  }

  /**
   * Where the proxy connects for `host`: the first resolved address that is not forbidden
   * (private, loopback, metadata, the host's own) unless `allowCidrs` contains it.
   */
  async upstream(host: string, defaultPort: number, allowCidrs: readonly string[]): Promise<Upstream> {
    const override = this.overrides.get(host);
    if (override) return { address: override.address, family: 4, port: override.port ?? defaultPort };
    let entries: Array<{ address: string; family: number }>;
    try {
      entries = await this.lookup(host);
    } catch {
      throw new EgressRefused(`'${host}' could not be resolved`, 502);
    }
    const own = hostAddresses();
    const usable = entries.filter((entry) => forbiddenReason(entry.address, allowCidrs, own) === null);
    // IPv4 first: Docker's sandbox networks and most hosts here are IPv4 only.
    usable.sort((a, b) => a.family - b.family);
    if (usable.length === 0) {
      if (entries.length === 0) throw new EgressRefused(`'${host}' has no address`, 502);
      const reason = forbiddenReason(entries[0].address, allowCidrs, own);
      throw new EgressRefused(`'${host}' resolves to an address that ${reason}; add it to allow_cidrs to allow it`);
    }
    return { address: usable[0].address, family: usable[0].family === 6 ? 6 : 4, port: defaultPort };
  }
}
