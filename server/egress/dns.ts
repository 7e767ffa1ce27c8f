import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { log } from '../log';
import { normaliseHost, type CompiledPolicy } from './policy';
import type { UpstreamResolver } from './resolver';

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const ANSWER_TTL_S = 30;
const MAX_TCP_MESSAGE = 65_535;

export type PolicyForAddress = (address: string) => CompiledPolicy | undefined;

function reply(query: dnsPacket.DecodedPacket, rcode: number, answers: dnsPacket.Answer[] = []): dnsPacket.Packet {
  return {
    type: 'response',
    id: query.id,
    flags: (query.flag_rd ? dnsPacket.RECURSION_DESIRED : 0) | dnsPacket.RECURSION_AVAILABLE | rcode,
    questions: query.questions,
    answers,
  };
}

/**
 * The answer Shoal gives a sandbox under a custom policy. Only names the policy allows resolve
 * (their real IPv4 addresses, looked up on the host); everything else is NXDOMAIN without asking
 * any other server, so DNS cannot be used to tunnel data out of the sandbox. AAAA and other
 * types of an allowed name answer empty (the sandbox network is IPv4 only). A source address
 * that is not a custom-policy sandbox is refused.
 */
export async function answerQuery(
  query: dnsPacket.DecodedPacket,
  policy: CompiledPolicy | undefined,
  resolver: Pick<UpstreamResolver, 'ipv4Addresses'>,
): Promise<dnsPacket.Packet> {
  if (!policy) return reply(query, RCODE.REFUSED);
  const question = query.questions?.[0];
  if (!question || query.questions!.length !== 1 || query.type !== 'query') return reply(query, RCODE.FORMERR);
  const host = normaliseHost(question.name);
  if (!host || !policy.allowsHost(host)) return reply(query, RCODE.NXDOMAIN);
  if (question.type !== 'A') return reply(query, RCODE.NOERROR);
  const addresses = await resolver.ipv4Addresses(host);
  if (addresses.length === 0) return reply(query, RCODE.NXDOMAIN);
  return reply(
    query,
    RCODE.NOERROR,
    addresses.map((address) => ({ type: 'A', name: question.name, ttl: ANSWER_TTL_S, class: 'IN', data: address })),
  );
}

/** The DNS responder for custom-policy sandboxes (UDP and TCP), bound to the egress bridge's gateway. */
export class EgressDns {
  private udp: dgram.Socket | null = null;
  private tcp: net.Server | null = null;

  constructor(
    private readonly policyFor: PolicyForAddress,
    private readonly resolver: UpstreamResolver,
  ) {}

  async start(host: string): Promise<{ udpPort: number; tcpPort: number }> {
    const udp = dgram.createSocket('udp4');
    udp.on('message', (message, remote) => void this.onUdp(udp, message, remote));
    udp.on('error', (error) => log.warn('egress DNS socket error', { error }));
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, host, () => {
        udp.off('error', reject);
        resolve();
      });
    });
    this.udp = udp;
    const tcp = net.createServer((socket) => this.onTcp(socket));
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    this.tcp = tcp;
    return { udpPort: udp.address().port, tcpPort: (tcp.address() as net.AddressInfo).port };
  }

  private async answer(message: Buffer, source: string): Promise<dnsPacket.Packet | null> {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return null; // not DNS: no answer at all
    }
    return answerQuery(query, this.policyFor(source), this.resolver);
  }

  private async onUdp(socket: dgram.Socket, message: Buffer, remote: dgram.RemoteInfo): Promise<void> {
    const response = await this.answer(message, remote.address).catch(() => null);
    if (!response) return;
    let bytes = dnsPacket.encode(response);
    if (bytes.length > 512) {
      // Too big for classic UDP: say so (TC) and let the client retry over TCP.
      bytes = dnsPacket.encode({
        ...response,
        answers: [],
        flags: (response.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE,
      });
    }
    socket.send(bytes, remote.port, remote.address);
  }

  private onTcp(socket: net.Socket): void {
    let buffered = Buffer.alloc(0);
    let busy = Promise.resolve();
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (length > MAX_TCP_MESSAGE) return void socket.destroy();
        if (buffered.length < 2 + length) break;
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        // Answers go back in the order the questions came.
        busy = busy.then(async () => {
          const response = await this.answer(message, socket.remoteAddress ?? '').catch(() => null);
          if (!response) return void socket.destroy();
          if (!socket.destroyed) socket.write(dnsPacket.streamEncode(response));
        });
      }
      if (buffered.length > MAX_TCP_MESSAGE + 2) socket.destroy();
    });
  }

  async stop(): Promise<void> {
    this.udp?.close();
    await new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve()));
    this.udp = null;
    this.tcp = null;
  }
}
