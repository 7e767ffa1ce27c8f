import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../errors';
import { restoreBody } from '../spec/sandbox';
import { validate } from './validation';

function failures(input: unknown) {
  try {
    validate(restoreBody, input);
  } catch (error) {
    if (error instanceof ValidationFailed) return error.errors;
    throw error;
  }
  return [];
}

describe('request validation', () => {
  it('names every failing field with a dotted path and indexes', () => {
    const errors = failures({
      timeout: 1.5,
      network_policy: {
        mode: 'custom',
        allow_domains: ['ok.example.com', '10.0.0.1', 'nodot'],
        allow_cidrs: ['300.1.1.1/8'],
      },
    });
    expect(errors.map((e) => e.field).sort()).toEqual(
      [
        'network_policy.allow_cidrs[0]',
        'network_policy.allow_domains[1]',
        'network_policy.allow_domains[2]',
        'snapshot_name',
        'timeout',
      ].sort(),
    );
    expect(errors.find((e) => e.field === 'snapshot_name')?.error).toBe('is required');
  });

  it('refuses lists with a mode other than custom, and CR/LF in injected headers', () => {
    const errors = failures({
      snapshot_name: 'x',
      network_policy: { mode: 'allow-all', allow_domains: ['a.example.com'] },
    });
    expect(errors).toEqual([{ field: 'network_policy.allow_domains', error: "only allowed when mode is 'custom'" }]);
    const crlf = failures({
      snapshot_name: 'x',
      network_policy: {
        mode: 'custom',
        transforms: [{ domain: 'api.example.com', inject_headers: { 'X-Key': 'a\r\nEvil: 1' } }],
      },
    });
    expect(crlf.map((e) => e.field)).toEqual(['network_policy.transforms[0].inject_headers.X-Key']);
  });

  it('accepts wildcard domains and CIDRs, ignores unknown fields, and bounds the timeout', () => {
    expect(
      failures({
        snapshot_name: '  debian  ',
        extra: true,
        network_policy: { mode: 'custom', allow_domains: ['*.example.com'], allow_cidrs: ['10.0.0.0/8', '1.2.3.4'] },
      }),
    ).toEqual([]);
    expect(failures({ snapshot_name: 'x', timeout: 28801 }).map((e) => e.field)).toEqual(['timeout']);
    expect(failures({ snapshot_name: 'x', timeout: '30' }).map((e) => e.field)).toEqual(['timeout']);
    expect(failures({ snapshot_name: 'x', timeout: 0 }).map((e) => e.field)).toEqual(['timeout']);
  });
});
