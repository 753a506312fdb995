import {
  decodeNodes,
  encodeNodes,
  type NodeColumns,
  type SessionSnapshotHead,
  type TreeNode,
} from '@canopy/protocol';
import { searchMaskColumns } from '@canopy/session-core';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleNodes, snapshotParts } from '../store/testing';
import { ApiError } from './errors';
import { packNodes } from './packedNodes';
import {
  MAX_NODES_PER_STEP,
  nextTask,
  readSnapshotHere,
  readSnapshotThrough,
  type SnapshotPart,
} from './snapshot';
import { SnapshotDecodeError, SnapshotDecoder } from './snapshotDecoder';
import { NODES_PER_MESSAGE, serveSnapshots } from './snapshotService';
import type { FetchLike } from './snapshotStream';
import type { FromSnapshotWorker, SnapshotPort, ToSnapshotWorker } from './snapshotWorkerProtocol';
import { fieldsOf } from './testing';

/** Nodes with multi-byte text (split across network reads in the tests), labels and usage. */
function manyNodes(count: number): TreeNode[] {
  const nodes: TreeNode[] = [];
  for (let i = 0; i < count; i++) {
    const text = `${i % 2 ? 'assistant' : 'user'}: step ${i} — café 🌲`;
    const node: TreeNode = {
      id: `n${i}`,
      parentId: i === 0 ? null : `n${i % 5 === 0 ? i - 2 : i - 1}`,
      type: 'message',
      role: i % 2 ? 'assistant' : 'user',
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      text,
      search: i % 7 === 0 ? `${text.toLowerCase()} extra` : text.toLowerCase(),
      flags: i % 4,
    };
    if (i % 50 === 3) node.label = `label ${i}`;
    if (i % 2)
      node.usage = {
        input: i,
        output: 2 * i,
        cacheRead: 0,
        cacheWrite: 1,
        totalTokens: 3 * i + 1,
        cost: i / 1000,
      };
    nodes.push(node);
  }
  return nodes;
}

/**
 * The snapshot's text as the server writes it: the head line, one line of columns per chunk and,
 * unless `closed` is false (a cut stream), the closing line.
 */
function snapshotText(nodes: readonly TreeNode[], chunk: number, closed = true): string {
  const [head, ...parts] = snapshotParts(nodes, nodes.at(-1)?.id ?? null, chunk);
  const lines = [JSON.stringify((head as Extract<SnapshotPart, { kind: 'head' }>).head)];
  for (const part of parts) {
    if (part.kind === 'nodes') lines.push(JSON.stringify(encodeNodes(part.nodes)));
    if (part.kind === 'end' && closed)
      lines.push(JSON.stringify({ end: { ...part.end, changed: encodeNodes(part.changed) } }));
  }
  return lines.map((line) => `${line}\n`).join('');
}

/** What a one-shot decode of the whole text gives: the head and every node, in order. */
function oneShot(text: string): { head: SessionSnapshotHead; nodes: TreeNode[] } {
  const [headLine, ...lines] = text.split('\n').filter((line) => line !== '');
  return {
    head: JSON.parse(headLine!) as SessionSnapshotHead,
    nodes: lines
      .map((line) => JSON.parse(line) as NodeColumns)
      .filter((value) => 'count' in value)
      .flatMap((columns) => decodeNodes(columns)),
  };
}

function joined(parts: readonly SnapshotPart[]): {
  head: SessionSnapshotHead | undefined;
  nodes: TreeNode[];
} {
  const head = parts[0]?.kind === 'head' ? parts[0].head : undefined;
  return { head, nodes: parts.flatMap((part) => (part.kind === 'nodes' ? part.nodes.map(fieldsOf) : [])) };
}

/** A response whose body arrives in pieces of `pieceBytes` bytes (cutting characters in two). */
function responseOf(text: string, pieceBytes: number, init: ResponseInit = {}): Response {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + pieceBytes));
      at += pieceBytes;
    },
  });
  return new Response(body, init);
}

const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** A snapshot service behind a real MessageChannel (structured clone included), as in the worker. */
function serviceWith(fetchImpl: FetchLike): MessagePort {
  const channel = new MessageChannel();
  ports.push(channel.port1, channel.port2);
  serveSnapshots(channel.port2 as unknown as SnapshotPort<ToSnapshotWorker, FromSnapshotWorker>, fetchImpl);
  return channel.port1;
}

async function collect(parts: AsyncIterable<SnapshotPart>): Promise<SnapshotPart[]> {
  const list: SnapshotPart[] = [];
  for await (const part of parts) list.push(part);
  return list;
}

describe('nextTask', () => {
  it('resolves every waiter after the microtasks queued meanwhile, in the order they asked', async () => {
    const order: string[] = [];
    const waits = [1, 2, 3].map((n) => nextTask().then(() => order.push(`task ${n}`)));
    void Promise.resolve().then(() => order.push('microtask'));
    await Promise.all(waits);
    await nextTask();
    order.push('after');
    expect(order).toEqual(['microtask', 'task 1', 'task 2', 'task 3', 'after']);
  });
});

describe('SnapshotDecoder', () => {
  const nodes = manyNodes(300);
  const text = snapshotText(nodes, 64);

  it.each([1, 7, 100, 4096, text.length])(
    'decodes the text pushed in pieces of %i characters exactly as a one-shot decode',
    (pieceChars) => {
      const decoder = new SnapshotDecoder();
      const parts: SnapshotPart[] = [];
      for (let at = 0; at < text.length; at += pieceChars)
        parts.push(...decoder.push(text.slice(at, at + pieceChars)));
      parts.push(...decoder.end());
      expect(joined(parts)).toEqual(oneShot(text));
      expect(joined(parts).nodes).toEqual(nodes);
      expect(parts.filter((part) => part.kind === 'nodes')).toHaveLength(Math.ceil(300 / 64));
    },
  );

  it('decodes a last line that has no newline', () => {
    const decoder = new SnapshotDecoder();
    const parts = [...decoder.push(text.slice(0, -1)), ...decoder.end()];
    expect(joined(parts).nodes).toEqual(nodes);
  });

  it('reports a stream cut after the head with how many nodes came', () => {
    const cut = snapshotText(nodes.slice(0, 64), 64, false);
    const decoder = new SnapshotDecoder();
    decoder.push(cut);
    expect(() => decoder.end()).toThrow(
      new SnapshotDecodeError('SNAPSHOT_CUT', 'The snapshot ended after 64 nodes'),
    );
  });

  it('names the line that is not JSON', () => {
    const decoder = new SnapshotDecoder();
    const lines = text.split('\n');
    expect(() => decoder.push(`${lines[0]}\n${lines[1]}\n{"count": 3, "id": [\n`)).toThrow(
      /^The snapshot's line 3 is not JSON/,
    );
  });

  it('names the line whose columns do not hold its nodes', () => {
    const decoder = new SnapshotDecoder();
    const bad = { ...encodeNodes(nodes.slice(0, 4)), count: 5 };
    expect(() => decoder.push(`${text.split('\n')[0]}\n${JSON.stringify(bad)}\n`)).toThrow(
      `The snapshot's line 2 holds no nodes (node columns: "id" has 4 values for 5 nodes)`,
    );
  });
});

describe('readSnapshotThrough a snapshot service', () => {
  it('posts the head, then the nodes in messages of NODES_PER_MESSAGE, then done', async () => {
    const nodes = manyNodes(NODES_PER_MESSAGE * 2 + 300);
    const text = snapshotText(nodes, 4096);
    const requested: Array<[string, RequestInit]> = [];
    const port = serviceWith((url, init) => {
      requested.push([url, init]);
      return Promise.resolve(responseOf(text, 65_536));
    });
    const messages: FromSnapshotWorker[] = [];
    const finished = new Promise<void>((resolve) => {
      port.onmessage = (event: MessageEvent<FromSnapshotWorker>) => {
        messages.push(event.data);
        if (event.data.type !== 'part' && event.data.type !== 'nodes') resolve();
      };
    });
    const load: ToSnapshotWorker = { type: 'load', loadId: 7, url: '/api/sessions/s1', token: 'the-token' };
    port.postMessage(load);
    await finished;
    // The token the page gave goes as a header; no cookie is sent.
    expect(requested.map(([url]) => url)).toEqual(['/api/sessions/s1']);
    expect(requested[0]![1]).toMatchObject({
      credentials: 'omit',
      headers: { authorization: 'Bearer the-token' },
    });
    expect(messages.map((message) => message.loadId)).toEqual(messages.map(() => 7));
    expect(
      messages.map((message) =>
        message.type === 'nodes'
          ? message.nodes.count
          : message.type === 'part'
            ? message.part.kind
            : message.type,
      ),
    ).toEqual(['head', NODES_PER_MESSAGE, NODES_PER_MESSAGE, 300, 'end', 'done']);
  });

  it('gives the head and every node, equal to a one-shot decode, in steps of at most MAX_NODES_PER_STEP nodes', async () => {
    const nodes = manyNodes(MAX_NODES_PER_STEP * 3 + 5);
    const text = snapshotText(nodes, 4096);
    const port = serviceWith(() => Promise.resolve(responseOf(text, 65_536)));
    const parts = await collect(readSnapshotThrough(port, '/api/sessions/s1'));
    expect(joined(parts)).toEqual(oneShot(text));
    expect(parts.at(-1)?.kind).toBe('end');
    for (const part of parts.slice(1, -1)) {
      expect(part.kind).toBe('nodes');
      if (part.kind === 'nodes') expect(part.nodes.length).toBeLessThanOrEqual(MAX_NODES_PER_STEP);
    }
  });

  it('sends the search masks of every node with it, made in the service, and joined steps keep them in order', async () => {
    const nodes = manyNodes(MAX_NODES_PER_STEP * 2 + 5);
    const text = snapshotText(nodes, 4096);
    const port = serviceWith(() => Promise.resolve(responseOf(text, 65_536)));
    const parts = await collect(readSnapshotThrough(port, '/api/sessions/s1'));
    const nodeParts = parts.filter((part) => part.kind === 'nodes');
    expect(nodeParts.length).toBeGreaterThan(1);
    for (const part of nodeParts) expect(part.masks).toEqual(searchMaskColumns(part.nodes));
  });

  it('hands the first node part alone, then joins node parts that queued up while the page was busy into steps of up to MAX_NODES_PER_STEP, in order', async () => {
    const nodes = manyNodes(NODES_PER_MESSAGE * 6);
    const [head] = snapshotParts(nodes, null, nodes.length);
    // A port that answers a load at once, with every message, before the reader takes the first.
    const listeners = new Set<(event: MessageEvent<FromSnapshotWorker>) => void>();
    const deliver = (data: FromSnapshotWorker) => {
      for (const listener of [...listeners]) listener(new MessageEvent('message', { data }));
    };
    const port = {
      addEventListener: (type: string, listener: (event: MessageEvent<FromSnapshotWorker>) => void) => {
        if (type === 'message') listeners.add(listener);
      },
      removeEventListener: (type: string, listener: (event: MessageEvent<FromSnapshotWorker>) => void) => {
        if (type === 'message') listeners.delete(listener);
      },
      postMessage: (message: ToSnapshotWorker) => {
        if (message.type !== 'load') return;
        const loadId = message.loadId;
        deliver({ type: 'part', loadId, part: head as Extract<SnapshotPart, { kind: 'head' }> });
        for (let at = 0; at < nodes.length; at += NODES_PER_MESSAGE)
          deliver({
            type: 'nodes',
            loadId,
            nodes: packNodes(nodes.slice(at, at + NODES_PER_MESSAGE)),
            masks: searchMaskColumns(nodes.slice(at, at + NODES_PER_MESSAGE)),
          });
        deliver({ type: 'done', loadId });
      },
    } as unknown as MessagePort;
    const parts = await collect(readSnapshotThrough(port, '/api/sessions/s1'));
    // The first node part alone (the first rows come from it), then joined steps.
    expect(parts.map((part) => (part.kind === 'nodes' ? part.nodes.length : part.kind))).toEqual([
      'head',
      NODES_PER_MESSAGE,
      MAX_NODES_PER_STEP,
      NODES_PER_MESSAGE * 5 - MAX_NODES_PER_STEP,
    ]);
    expect(joined(parts).nodes).toEqual(nodes);
    for (const part of parts)
      if (part.kind === 'nodes') expect(part.masks).toEqual(searchMaskColumns(part.nodes));
  });

  it('turns a refusal into the ApiError of the server’s error body', async () => {
    const body = JSON.stringify({ error: { code: 'NOT_FOUND', message: 'No session s9' } });
    const port = serviceWith(() =>
      Promise.resolve(
        new Response(body, {
          status: 404,
          statusText: 'Not Found',
          headers: { 'content-type': 'application/json' },
        }),
      ),
    );
    await expect(collect(readSnapshotThrough(port, '/api/sessions/s9'))).rejects.toEqual(
      new ApiError(404, 'NOT_FOUND', 'No session s9'),
    );
  });

  it('says the server cannot be reached when the request fails', async () => {
    const port = serviceWith(() => Promise.reject(new TypeError('fetch failed')));
    const error = await collect(readSnapshotThrough(port, '/api/sessions/s1')).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 0,
      code: 'NETWORK',
      message: 'Cannot reach the Canopy server (fetch failed)',
    });
  });

  it('fails with the count of nodes that came when the stream is cut', async () => {
    const nodes = sampleNodes();
    const cut = snapshotText(nodes.slice(0, 3), 3, false);
    const port = serviceWith(() => Promise.resolve(responseOf(cut, 10)));
    await expect(collect(readSnapshotThrough(port, '/api/sessions/s1'))).rejects.toEqual(
      new ApiError(0, 'SNAPSHOT_CUT', 'The snapshot ended after 3 nodes'),
    );
  });

  it('stops the download of a load aborted mid-open, and the next load on the same worker reads in full', async () => {
    const nodes = manyNodes(200);
    const text = snapshotText(nodes, 50);
    const firstChunkEnd = text.indexOf('\n', text.indexOf('\n') + 1) + 1;
    const signals: AbortSignal[] = [];
    let firstCancelled = false;
    const port = serviceWith((url, init) => {
      signals.push(init.signal!);
      if (url.endsWith('/slow')) {
        // The head and the first chunk, then nothing more until cancelled.
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(text.slice(0, firstChunkEnd)));
          },
          cancel() {
            firstCancelled = true;
          },
        });
        return Promise.resolve(new Response(body));
      }
      return Promise.resolve(responseOf(text, 999));
    });
    const controller = new AbortController();
    const slow = readSnapshotThrough(port, '/api/sessions/slow', controller.signal);
    const received: SnapshotPart[] = [];
    const stopped = (async () => {
      for await (const part of slow) {
        received.push(part);
        if (part.kind === 'nodes') controller.abort();
      }
    })();
    await expect(stopped).rejects.toMatchObject({ name: 'AbortError' });
    expect(received.map((part) => part.kind)).toEqual(['head', 'nodes']);
    await expect.poll(() => signals[0]?.aborted).toBe(true);
    await expect.poll(() => firstCancelled).toBe(true);

    const parts = await collect(readSnapshotThrough(port, '/api/sessions/fast'));
    expect(joined(parts).nodes).toEqual(nodes);
    expect(signals[1]?.aborted).toBe(false);
  });
});

describe('readSnapshotHere (no worker)', () => {
  it('gives the same parts as the worker path, and the same ApiError for a refusal', async () => {
    const nodes = manyNodes(500);
    const text = snapshotText(nodes, 128);
    const parts = await collect(
      readSnapshotHere('/api/sessions/s1', undefined, () => Promise.resolve(responseOf(text, 333))),
    );
    expect(joined(parts)).toEqual(oneShot(text));
    const body = JSON.stringify({ error: { code: 'NOT_FOUND', message: 'No session s9' } });
    const refused = () => Promise.resolve(new Response(body, { status: 404 }));
    await expect(collect(readSnapshotHere('/api/sessions/s9', undefined, refused))).rejects.toEqual(
      new ApiError(404, 'NOT_FOUND', 'No session s9'),
    );
  });
});
