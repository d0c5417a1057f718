import { createSocket, type Socket } from 'node:dgram';

/** A host's records; `silent` hosts are never answered (a resolver that hangs). */
export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  silent?: boolean;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

/**
 * A real DNS server on 127.0.0.1 (UDP) answering A and AAAA queries from a table, so tests can
 * resolve made-up names to chosen addresses through the same resolver production uses.
 */
export class DnsServer {
  private socket?: Socket;
  readonly queries: string[] = [];

  constructor(private readonly hosts: Record<string, DnsRecords>) {}

  async start(): Promise<this> {
    const socket = createSocket('udp4');
    socket.on('message', (msg, rinfo) => {
      const reply = this.answer(msg);
      if (reply) socket.send(reply, rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.socket = socket;
    return this;
  }

  get address(): string {
    return `127.0.0.1:${this.socket!.address().port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.socket?.close(() => resolve()));
  }

  private answer(query: Buffer): Buffer | null {
    const labels: string[] = [];
    let offset = 12;
    while (query[offset] !== 0) {
      labels.push(query.subarray(offset + 1, offset + 1 + query[offset]).toString('latin1'));
      offset += query[offset] + 1;
    }
    const questionEnd = offset + 5;
    const type = query.readUInt16BE(offset + 1);
    const name = labels.join('.').toLowerCase();
    this.queries.push(name);
    const host = this.hosts[name];
    if (host?.silent) return null;
    const addresses = type === TYPE_A ? (host?.A ?? []) : type === TYPE_AAAA ? (host?.AAAA ?? []) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(host ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const rdata = type === TYPE_A ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the question's name
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([record, rdata]);
    });
    return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
  }
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::');
  const groups = (part?: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
