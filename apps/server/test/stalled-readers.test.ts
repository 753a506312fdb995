// A snapshot stream its client does not read is paused with bounded buffering (docs/safety.md#access):
// the server holds the line being sent and one piece queued on the socket, not a line in each of
// the stream's buffers; snapshots of a session that did not change share one list of its nodes.
import type { ServerResponse } from 'node:http';
import net from 'node:net';
import { MemoryStorage, SessionManager } from '@canopy/session-core';
import { afterEach, describe, expect, it } from 'vitest';
import { SNAPSHOT_WRITE_BYTES } from '../src/operations/snapshot-stream';
import { AUTH, TOKEN, waitFor } from './helpers';
import { setupOwn, type OwnEnv } from './own-sessions';

/** A session of `turns` exchanges whose texts are long enough to make a snapshot of tens of MB. */
function longSession(turns: number): string {
  const storage = new MemoryStorage();
  const sm = SessionManager.inMemory('/work/project', { storage });
  const words = 'the quick brown fox jumps over the lazy dog while the build runs again '.repeat(12);
  for (let i = 0; i < turns; i++) {
    sm.appendMessage({ role: 'user', content: [{ type: 'text', text: `${i} ${words}` }], timestamp: 1 });
    sm.appendMessage({
      role: 'assistant',
      content: [{ type: 'text', text: `${words} ${i}` }],
      timestamp: 2,
    } as never);
  }
  return storage.read();
}

describe('snapshot readers that stop reading', () => {
  let env: OwnEnv;
  afterEach(async () => env.close());

  it('each holds at most one piece queued on its socket once its socket is full, and shares the node list', async () => {
    env = await setupOwn({ 'big.jsonl': longSession(15_000) }, { port: undefined });
    await env.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = env.app.server.address() as { port: number };
    const headers = { ...AUTH, host: `127.0.0.1:${port}` };
    const list = await env.app.inject({ method: 'GET', url: '/api/sessions', headers });
    const id = (list.json() as { sessions: Array<{ id: string }> }).sessions[0]!.id;
    // Opened once, so that every reader below takes the same state.
    const whole = await env.app.inject({ method: 'GET', url: `/api/sessions/${id}`, headers });
    expect(whole.rawPayload.length).toBeGreaterThan(12 << 20);
    const open = await env.app.canopy.store.open(id);
    expect(open.snapshotNodes()).toBe(open.snapshotNodes());

    const responses: ServerResponse[] = [];
    env.app.server.on('request', (_request, response: ServerResponse) => responses.push(response));
    const sockets: net.Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `GET /api/sessions/${id} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
      );
      socket.pause(); // never reads: the kernel's buffers fill, then the server's stream pauses
      sockets.push(socket);
    }
    try {
      await waitFor(
        () => responses.length === 3 && responses.every((response) => response.writableNeedDrain),
      );
      for (const response of responses) {
        // One piece (and its chunk framing) waits in user space; before, a whole ~1 MB line did.
        expect(response.writableLength).toBeLessThanOrEqual(SNAPSHOT_WRITE_BYTES + 64);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
