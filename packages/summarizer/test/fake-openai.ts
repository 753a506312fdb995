// An OpenAI-compatible chat-completions server on 127.0.0.1 for the LLM summariser tests: it records
// every request and answers with a streamed (SSE) completion (text with its usage, or a tool call),
// an HTTP error, a dropped connection, or a stream that stays open until the client goes away. Used
// by this package's tests, the server's and the end-to-end tests (`@canopy/summarizer/test-server`).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export type FakeReply =
  /** Streams the chunks as content deltas, then a stop and (when asked for) the usage. */
  | { kind: 'stream'; chunks: string[] }
  /** Answers with a tool call instead of text. */
  | { kind: 'toolcall'; name: string; args: string }
  /** Closes the connection without an answer. */
  | { kind: 'drop' }
  /** Opens the stream and leaves it to the test: `fake.push(text)` sends a chunk, `fake.finish()` ends it. */
  | { kind: 'manual' }
  /** Streams the chunks and keeps the response open until the client disconnects. */
  | { kind: 'hang'; chunks: string[] }
  /** Never answers, not even with headers, until the client disconnects. */
  | { kind: 'silent' }
  | { kind: 'status'; status: number; body: unknown };

export interface FakeOpenAi {
  /** The `/v1` base URL to configure. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** The reply to the next requests (after the queued ones). */
  reply: FakeReply;
  /** Replies used one per request, first in first out, before `reply`. */
  queue: FakeReply[];
  /** Resolves when a hanging or silent response has been closed by its client. */
  clientGone(): Promise<void>;
  /** A `manual` reply: whether its stream is open, a chunk of text, the end. */
  manualOpen(): boolean;
  push(text: string): void;
  finish(): void;
  close(): Promise<void>;
}

function chunkEvent(model: unknown, delta: Record<string, unknown>, finishReason: string | null): string {
  const chunk = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1735689600,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function writeChunks(res: ServerResponse, model: unknown, chunks: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunkEvent(model, { role: 'assistant', content: '' }, null));
  for (const chunk of chunks) res.write(chunkEvent(model, { content: chunk }, null));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  let gone: Promise<void> = Promise.resolve();
  let manual: { res: ServerResponse; model: unknown } | undefined;
  const fake: FakeOpenAi = {
    baseUrl: '',
    requests,
    reply: { kind: 'stream', chunks: ['ok'] },
    queue: [],
    clientGone: () => gone,
    manualOpen: () => manual !== undefined,
    push: (text) => manual?.res.write(chunkEvent(manual.model, { content: text }, null)),
    finish: () => {
      if (!manual) return;
      manual.res.write(chunkEvent(manual.model, {}, 'stop'));
      manual.res.end('data: [DONE]\n\n');
      manual = undefined;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, unknown>;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = fake.queue.shift() ?? fake.reply;
      switch (reply.kind) {
        case 'drop':
          req.socket.destroy();
          return;
        case 'manual':
          writeChunks(res, body.model, []);
          manual = { res, model: body.model };
          res.on('close', () => {
            if (manual?.res === res) manual = undefined;
          });
          return;
        case 'toolcall':
          writeChunks(res, body.model, []);
          res.write(
            chunkEvent(
              body.model,
              {
                tool_calls: [
                  {
                    index: 0,
                    id: 'call_1',
                    type: 'function',
                    function: { name: reply.name, arguments: reply.args },
                  },
                ],
              },
              null,
            ),
          );
          res.write(chunkEvent(body.model, {}, 'tool_calls'));
          res.end('data: [DONE]\n\n');
          return;
        case 'status':
          // x-should-retry: the OpenAI client would otherwise retry a 5xx twice before failing.
          res.writeHead(reply.status, { 'content-type': 'application/json', 'x-should-retry': 'false' });
          res.end(JSON.stringify(reply.body));
          return;
        case 'stream':
          writeChunks(res, body.model, reply.chunks);
          res.write(chunkEvent(body.model, {}, 'stop'));
          if (isRecord(body.stream_options) && body.stream_options.include_usage === true) {
            const usage = { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280 };
            res.write(
              `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1735689600, model: body.model, choices: [], usage })}\n\n`,
            );
          }
          res.end('data: [DONE]\n\n');
          return;
        case 'hang':
          gone = new Promise<void>((resolve) => res.on('close', resolve));
          writeChunks(res, body.model, reply.chunks);
          return;
        case 'silent':
          gone = new Promise<void>((resolve) => res.on('close', resolve));
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
