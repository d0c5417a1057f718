import { createSocket, type Socket } from 'node:dgram';

/** A host's records; `silent` hosts are never answered (a resolver that hangs). */
export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  /** Each record's text; longer than 255 bytes, it goes out in 255-byte strings, as DNS requires. */
  TXT?: string[];
  silent?: boolean;
}

const TYPE_A = 1;
const TYPE_TXT = 16;
const TYPE_AAAA = 28;

/** TXT rdata: length-prefixed strings of at most 255 bytes. */
function txtBytes(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

/**
 * A real DNS server on 127.0.0.1 (UDP) answering A, AAAA and TXT queries from a table (which a test
 * may change while it runs, as a tenant publishes a record), so tests resolve made-up names through
 * the same resolver production uses.
 */
export class DnsServer {
  private socket?: Socket;
  readonly queries: string[] = [];

  constructor(readonly hosts: Record<string, DnsRecords>) {}

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
    const rdatas =
      type === TYPE_A
        ? (host?.A ?? []).map((a) => Buffer.from(a.split('.').map(Number)))
        : type === TYPE_AAAA
          ? (host?.AAAA ?? []).map(ipv6Bytes)
          : type === TYPE_TXT
            ? (host?.TXT ?? []).map(txtBytes)
            : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(host ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(rdatas.length, 6);
    const answers = rdatas.map((rdata) => {
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
