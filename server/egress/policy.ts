import type { IncomingHttpHeaders } from 'node:http';
import type { NetworkPolicy } from '../spec/common';
import { normaliseCidr } from './addresses';

export type Transform = NonNullable<NetworkPolicy['transforms']>[number];

/**
 * Headers that frame the HTTP message or the connection. A transform never strips or injects
 * them: rewriting them could desynchronise the request stream between the proxy and upstream.
 */
const FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
]);

const HOST_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * A host name as a policy compares it: lower case, without a trailing dot or a port. Null for
 * anything that is not a DNS name of two or more labels (IP literals, empty, garbage), which no
 * policy can allow: `allow_domains` holds names only, addresses belong in `allow_cidrs`.
 */
export function normaliseHost(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let host = raw.trim().toLowerCase();
  if (host.startsWith('[')) return null; // IPv6 literal
  const colon = host.indexOf(':');
  if (colon >= 0) {
    if (!/^\d{1,5}$/.test(host.slice(colon + 1))) return null;
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length > 253 || !HOST_RE.test(host)) return null;
  if (/^\d+(?:\.\d+){3}$/.test(host)) return null; // IPv4 literal
  return host;
}

/**
 * `example.com` matches exactly that name; `*.example.com` matches every name below it, at any
 * depth (`a.example.com`, `a.b.example.com`), but not `example.com` itself.
 */
export function domainMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '');
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

/** How specific a matching pattern is: an exact name beats any wildcard, a longer suffix a shorter one. */
function specificity(pattern: string): number {
  return pattern.startsWith('*.') ? pattern.length : 10_000;
}

/** A policy in the form the proxy and the DNS responder ask questions of. */
export interface CompiledPolicy {
  readonly mode: NetworkPolicy['mode'];
  /** Normalised CIDRs (`a.b.c.d/n`, network address). */
  readonly cidrs: string[];
  /** Whether the name may be reached (listed in allow_domains, or has a transform). */
  allowsHost(host: string): boolean;
  /** The transform for the name (most specific pattern wins), if any. */
  transformFor(host: string): Transform | undefined;
}

export function compilePolicy(policy: NetworkPolicy): CompiledPolicy {
  const domains = (policy.allow_domains ?? []).map((d) => d.toLowerCase());
  const transforms = (policy.transforms ?? []).map((t) => ({ ...t, domain: t.domain.toLowerCase() }));
  const cidrs = [...new Set((policy.allow_cidrs ?? []).map(normaliseCidr))];
  const transformFor = (host: string): Transform | undefined => {
    let best: Transform | undefined;
    for (const transform of transforms) {
      if (!domainMatches(transform.domain, host)) continue;
      if (!best || specificity(transform.domain) > specificity(best.domain)) best = transform;
    }
    return best;
  };
  return {
    mode: policy.mode,
    cidrs,
    allowsHost: (host) =>
      policy.mode === 'allow-all' ||
      (policy.mode === 'custom' &&
        (domains.some((pattern) => domainMatches(pattern, host)) || transformFor(host) !== undefined)),
    transformFor,
  };
}

/**
 * Applies a transform to request headers: strip first, then inject, overwriting whatever the
 * sandbox sent under that name (any case). Framing headers are left alone. Returns a new object.
 */
export function applyTransform(headers: IncomingHttpHeaders, transform: Transform | undefined): IncomingHttpHeaders {
  if (!transform) return headers;
  const out: IncomingHttpHeaders = { ...headers };
  const drop = (name: string) => {
    const lower = name.toLowerCase();
    if (FRAMING_HEADERS.has(lower)) return;
    for (const key of Object.keys(out)) if (key.toLowerCase() === lower) delete out[key];
  };
  for (const name of transform.strip_headers ?? []) drop(name);
  for (const [name, value] of Object.entries(transform.inject_headers ?? {})) {
    const lower = name.toLowerCase();
    if (FRAMING_HEADERS.has(lower)) continue;
    drop(lower);
    out[lower] = value;
  }
  return out;
}
