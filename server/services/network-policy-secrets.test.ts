import { describe, expect, it } from 'vitest';
import type { NetworkPolicy } from '../spec/common';
import { keepRedactedSecrets, redactNetworkPolicy, REDACTED_HEADER_VALUE } from './network-policy-secrets';

const stored: NetworkPolicy = {
  mode: 'custom',
  allow_domains: ['deb.debian.org'],
  transforms: [
    { domain: 'api.example.com', inject_headers: { Authorization: 'Bearer s3cret' }, strip_headers: ['Cookie'] },
  ],
};

describe('network policy secrets', () => {
  it('replaces every injected header value and keeps the rest of the policy', () => {
    const shown = redactNetworkPolicy(stored);
    expect(JSON.stringify(shown)).not.toContain('s3cret');
    expect(shown).toEqual({
      mode: 'custom',
      allow_domains: ['deb.debian.org'],
      transforms: [
        {
          domain: 'api.example.com',
          inject_headers: { Authorization: REDACTED_HEADER_VALUE },
          strip_headers: ['Cookie'],
        },
      ],
    });
    const plain: NetworkPolicy = { mode: 'allow-all' };
    expect(redactNetworkPolicy(plain)).toBe(plain);
  });

  it('keeps the stored secret when a client sends the placeholder back, and takes new values as given', () => {
    const roundTrip = keepRedactedSecrets(redactNetworkPolicy(stored), stored);
    expect(roundTrip).toEqual(stored);
    const changed = keepRedactedSecrets(
      {
        mode: 'custom',
        transforms: [
          {
            domain: 'API.example.com',
            inject_headers: { Authorization: 'Bearer new', 'X-Other': REDACTED_HEADER_VALUE },
          },
        ],
      },
      stored,
    );
    expect(changed.transforms?.[0].inject_headers).toEqual({
      Authorization: 'Bearer new',
      'X-Other': REDACTED_HEADER_VALUE,
    });
  });
});
