import { z } from 'zod';

/** Hostname of at least two labels, optionally `*.`-prefixed; no IP, no port. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const DOMAIN_RE = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})+$`);
const IPV4_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

export const domainSchema = z
  .string()
  .max(253)
  .refine((value) => DOMAIN_RE.test(value) && !IPV4_RE.test(value.replace(/^\*\./, '')), {
    message: 'must be a host name of at least two labels (optionally prefixed with *.), not an IP address or port',
  });

function isIpv4(value: string): boolean {
  const match = IPV4_RE.exec(value);
  return !!match && match.slice(1).every((octet) => Number(octet) <= 255 && String(Number(octet)) === octet);
}

export const cidrSchema = z.string().refine(
  (value) => {
    const [address, prefix, ...rest] = value.split('/');
    if (rest.length > 0 || !isIpv4(address)) return false;
    return prefix === undefined || (/^\d{1,2}$/.test(prefix) && Number(prefix) <= 32);
  },
  { message: 'must be an IPv4 CIDR such as 10.0.0.0/8' },
);

const headerNameSchema = z.string().regex(HEADER_NAME_RE, 'must be a valid HTTP header name');

export const transformSchema = z.object({
  domain: domainSchema,
  inject_headers: z
    .record(
      headerNameSchema,
      z
        .string()
        .max(8192)
        .refine((v) => !/[\r\n\0]/.test(v), 'must not contain CR, LF or NUL'),
    )
    .optional(),
  strip_headers: z.array(headerNameSchema).max(50).optional(),
});

export const networkPolicyModes = ['allow-all', 'deny-all', 'custom'] as const;

export const networkPolicySchema = z
  .object({
    mode: z.enum(networkPolicyModes),
    allow_domains: z.array(domainSchema).max(50).optional(),
    allow_cidrs: z.array(cidrSchema).max(10).optional(),
    transforms: z.array(transformSchema).max(20).optional(),
  })
  .superRefine((policy, ctx) => {
    if (policy.mode === 'custom') return;
    for (const field of ['allow_domains', 'allow_cidrs', 'transforms'] as const) {
      if ((policy[field]?.length ?? 0) > 0) {
        ctx.addIssue({ code: 'custom', path: [field], message: `only allowed when mode is 'custom'` });
      }
    }
  });

export type NetworkPolicy = z.infer<typeof networkPolicySchema>;
export const DEFAULT_NETWORK_POLICY: NetworkPolicy = { mode: 'allow-all' };

export const mountSchema = z.object({
  id: z.string(),
  type: z.string(),
  bucket: z.string(),
  mount_path: z.string(),
  prefix: z.string(),
  read_only: z.boolean(),
});
export type Mount = z.infer<typeof mountSchema>;

export const sandboxStates = [
  'starting',
  'running',
  'paused',
  'unpausing',
  'stopping',
  'stopped',
  'snapshotting',
  'deleting',
  'deleted',
] as const;
export type SandboxState = (typeof sandboxStates)[number];

export const sandboxIdParams = z.object({ sandboxID: z.string().min(1).max(128) });

export const messageSchema = z.object({ message: z.string() });
export const validationErrorSchema = z.object({
  message: z.string(),
  errors: z.array(z.object({ field: z.string(), error: z.string() })),
});

/** Page numbers from query strings: `page=2&page-size=50`. */
export const pageQuery = {
  page: z.coerce.number().int().min(1).default(1),
  'page-size': z.coerce.number().int().min(1).max(1000).default(20),
};
