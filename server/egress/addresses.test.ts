import { describe, expect, it } from 'vitest';
import { cidrContains, forbiddenReason, normaliseCidr } from './addresses';

const NO_HOST_ADDRESSES = new Set<string>();

describe('CIDRs', () => {
  it('normalises to the network address, a bare address being a /32', () => {
    expect(normaliseCidr('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(normaliseCidr('172.18.0.1')).toBe('172.18.0.1/32');
    expect(normaliseCidr('0.0.0.0/0')).toBe('0.0.0.0/0');
  });

  it('tests membership', () => {
    expect(cidrContains('10.0.0.0/8', '10.255.1.1')).toBe(true);
    expect(cidrContains('10.0.0.0/8', '11.0.0.1')).toBe(false);
    expect(cidrContains('0.0.0.0/0', '8.8.8.8')).toBe(true);
    expect(cidrContains('1.2.3.4/32', '1.2.3.4')).toBe(true);
    expect(cidrContains('1.2.3.4/32', '::1')).toBe(false);
  });
});

describe('forbiddenReason', () => {
  it('refuses metadata, private, loopback, CGNAT and reserved addresses', () => {
    for (const address of [
      '169.254.169.254',
      '10.0.0.1',
      '172.17.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      'fe80::1',
      'fd00::2',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
    ]) {
      expect(forbiddenReason(address, [], NO_HOST_ADDRESSES), address).not.toBeNull();
    }
  });

  it('accepts public addresses', () => {
    for (const address of ['203.0.113.80', '8.8.8.8', '151.101.2.132', '2a04:4e42::644']) {
      expect(forbiddenReason(address, [], NO_HOST_ADDRESSES), address).toBeNull();
    }
  });

  it("refuses the host's own addresses even when public", () => {
    expect(forbiddenReason('192.0.2.2', [], new Set(['192.0.2.2']))).toMatch(/Shoal host/);
  });

  it('lets an allowed CIDR override every refusal', () => {
    expect(forbiddenReason('169.254.169.254', ['169.254.169.254/32'], NO_HOST_ADDRESSES)).toBeNull();
    expect(forbiddenReason('10.9.8.7', ['10.0.0.0/8'], NO_HOST_ADDRESSES)).toBeNull();
    expect(forbiddenReason('192.0.2.2', ['192.0.2.0/24'], new Set(['192.0.2.2']))).toBeNull();
    expect(forbiddenReason('10.9.8.7', ['10.9.0.0/24'], NO_HOST_ADDRESSES)).not.toBeNull();
  });
});
