import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { answerQuery, EgressDns } from './dns';
import { compilePolicy } from './policy';
import { UpstreamResolver } from './resolver';

function query(name: string, type: dnsPacket.RecordType = 'A'): dnsPacket.DecodedPacket {
  return dnsPacket.decode(
    dnsPacket.encode({ type: 'query', id: 42, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }] }),
  );
}

const resolver = {
  async ipv4Addresses(host: string) {
    return host === 'deb.debian.org' || host === 'api.github.com' ? ['203.0.113.80'] : [];
  },
};
const policy = compilePolicy({ mode: 'custom', allow_domains: ['deb.debian.org', '*.github.com'] });

function rcode(packet: dnsPacket.Packet): string {
  return (dnsPacket.decode(dnsPacket.encode(packet)) as unknown as { rcode: string }).rcode;
}

describe('answerQuery', () => {
  it('answers an allowed name with its host-side IPv4 address', async () => {
    const answer = await answerQuery(query('deb.debian.org'), policy, resolver);
    expect(rcode(answer)).toBe('NOERROR');
    expect(answer.id).toBe(42);
    expect(answer.answers).toEqual([expect.objectContaining({ type: 'A', data: '203.0.113.80' })]);
    const wildcard = await answerQuery(query('API.GitHub.com.'), policy, resolver);
    expect(wildcard.answers).toHaveLength(1);
  });

  it('says NXDOMAIN for a name the policy does not allow, without resolving it', async () => {
    let asked = false;
    const spy = { ipv4Addresses: async () => ((asked = true), ['1.2.3.4']) };
    const answer = await answerQuery(query('security.debian.org'), policy, spy);
    expect(rcode(answer)).toBe('NXDOMAIN');
    expect(answer.answers).toEqual([]);
    expect(asked).toBe(false);
  });

  it('answers AAAA and other types of an allowed name empty (the network is IPv4 only)', async () => {
    const answer = await answerQuery(query('deb.debian.org', 'AAAA'), policy, resolver);
    expect(rcode(answer)).toBe('NOERROR');
    expect(answer.answers).toEqual([]);
  });

  it('refuses a source that is not a custom-policy sandbox', async () => {
    expect(rcode(await answerQuery(query('deb.debian.org'), undefined, resolver))).toBe('REFUSED');
  });
});

describe('EgressDns', () => {
  it('answers over UDP by the source address', async () => {
    const dns = new EgressDns(
      (address) => (address === '127.0.0.1' ? policy : undefined),
      new UpstreamResolver(new Map([['deb.debian.org', { address: '203.0.113.80' }]])),
    );
    const { udpPort } = await dns.start('127.0.0.1');
    const client = dgram.createSocket('udp4');
    try {
      const response = await new Promise<dnsPacket.DecodedPacket>((resolve) => {
        client.once('message', (message) => resolve(dnsPacket.decode(message)));
        client.send(
          dnsPacket.encode({ type: 'query', id: 7, questions: [{ type: 'A', name: 'deb.debian.org' }] }),
          udpPort,
          '127.0.0.1',
        );
      });
      expect(response.id).toBe(7);
      expect(response.answers).toEqual([expect.objectContaining({ data: '203.0.113.80' })]);
    } finally {
      client.close();
      await dns.stop();
    }
  });
});
