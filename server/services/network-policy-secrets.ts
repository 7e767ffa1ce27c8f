import type { NetworkPolicy } from '../spec/common';

/**
 * Injected header values are secrets: they are shown in no response (ARCHITECTURE's rule), so
 * sandbox and snapshot views carry this placeholder instead.
 */
export const REDACTED_HEADER_VALUE = '[redacted]';

type Transforms = NonNullable<NetworkPolicy['transforms']>;

export function redactNetworkPolicy(policy: NetworkPolicy): NetworkPolicy {
  if (!policy.transforms?.some((transform) => transform.inject_headers)) return policy;
  return {
    ...policy,
    transforms: policy.transforms.map((transform) =>
      transform.inject_headers
        ? {
            ...transform,
            inject_headers: Object.fromEntries(
              Object.keys(transform.inject_headers).map((name) => [name, REDACTED_HEADER_VALUE]),
            ),
          }
        : transform,
    ),
  };
}

/**
 * A client that reads a policy and PUTs it back sends the placeholder: where the incoming value
 * is the placeholder and the stored policy has a value for the same domain and header, the
 * stored secret is kept instead of being overwritten.
 */
export function keepRedactedSecrets(incoming: NetworkPolicy, stored: NetworkPolicy): NetworkPolicy {
  if (!incoming.transforms?.length || !stored.transforms?.length) return incoming;
  const storedValue = (domain: string, header: string) =>
    stored.transforms?.find((transform) => transform.domain.toLowerCase() === domain.toLowerCase())?.inject_headers?.[
      header
    ];
  const transforms: Transforms = incoming.transforms.map((transform) => {
    if (!transform.inject_headers) return transform;
    const headers = Object.fromEntries(
      Object.entries(transform.inject_headers).map(([name, value]) => [
        name,
        value === REDACTED_HEADER_VALUE ? (storedValue(transform.domain, name) ?? value) : value,
      ]),
    );
    return { ...transform, inject_headers: headers };
  });
  return { ...incoming, transforms };
}
