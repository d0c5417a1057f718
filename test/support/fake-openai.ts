import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type FakeReply =
  | {
      status: number;
      json?: unknown;
      content?: string;
      headers?: Record<string, string>;
      /** answer only after this long */ delayMs?: number;
    }
  | 'hang';

type Received = FakeOpenAi['requests'][number];
/** A reply, or a function of the request (e.g. by prompt, when concurrent calls arrive in any order). */
type FakeFallback = FakeReply | ((request: Received) => FakeReply);

export interface FakeOpenAi {
  baseUrl: string;
  /** Bodies of the chat completion requests received, in order. */
  requests: { messages: { role: string; content: string }[]; model: string; response_format?: unknown }[];
  /** Replies to give, in order; when empty, `fallback` answers. */
  script(replies: FakeReply[], fallback?: FakeFallback): void;
  close(): Promise<void>;
}

/** A local OpenAI-compatible server (POST /v1/chat/completions) for the real `openai` client to talk to. */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  let queue: FakeReply[] = [];
  let fallback: FakeFallback = { status: 500, json: { error: { message: 'no scripted reply' } } };
  const requests: FakeOpenAi['requests'] = [];
  const hanging = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const received = JSON.parse(raw);
    requests.push(received);
    const reply = queue.shift() ?? (typeof fallback === 'function' ? fallback(received) : fallback);
    if (reply === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    const body =
      reply.content !== undefined
        ? {
            id: 'chatcmpl-test',
            object: 'chat.completion',
            created: 0,
            model: 'fake-model',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.content } }],
          }
        : reply.json;
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(body));
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(replies, fb) {
      queue = [...replies];
      if (fb) fallback = fb;
      requests.length = 0;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
