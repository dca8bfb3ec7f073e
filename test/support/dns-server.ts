/**
 * A DNS server of the test's own on loopback UDP (dns-packet encodes the answers), standing in for the
 * third-party DNS that customers' names live in. Names under `.hang.test` are never answered (a resolver
 * that hangs); names listed in `records` get their A records with the given TTL; anything else is NXDOMAIN.
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface TestDnsServer {
  /** `127.0.0.1:port`, for DnsSettings.servers. */
  address: string;
  /** Queries received, by name (A and AAAA both count). */
  queries: Map<string, number>;
  close(): Promise<void>;
}

export async function startDnsServer(records: Record<string, { addresses: string[]; ttl: number }> = {}): Promise<TestDnsServer> {
  const socket = dgram.createSocket('udp4');
  const queries = new Map<string, number>();
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    queries.set(name, (queries.get(name) ?? 0) + 1);
    if (name.endsWith('.hang.test')) return;
    const record = records[name];
    const answers =
      record && question.type === 'A'
        ? record.addresses.map((data) => ({ type: 'A' as const, name: question.name, ttl: record.ttl, class: 'IN' as const, data }))
        : [];
    const response = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (record ? 0 : 3), // rcode 3: NXDOMAIN
      questions: [question],
      answers,
    });
    socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
