import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import type { SessionSnapshotHead, SnapshotClosingLine } from '@canopy/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assembleSnapshot,
  AUTH,
  FIXTURES_DIR,
  getSnapshot,
  sessionIdOf,
  setup,
  snapshotBodyLines,
  type TestEnv,
} from './helpers';

// A fresh server streams a session's snapshot while it still reads the file
// (docs/architecture.md#opening-a-session). The read is held after its first piece through the
// `afterPiece` seam, so what a browser has before the end is looked at without any timing.

const PIECE_BYTES = 700;

/** Gates of the running test: released after it, so a failed one does not leave its read held. */
const gates: Array<() => void> = [];

/** A gate the first piece of every whole read waits at, until `release`. */
function heldAtFirstPiece() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  gates.push(release);
  let reached: () => void = () => undefined;
  const atGate = new Promise<void>((resolve) => (reached = resolve));
  let pieces = 0;
  let whenHeld: (() => void) | undefined;
  return {
    release,
    atGate,
    get pieces() {
      return pieces;
    },
    /** Runs once, at the gate, before it waits (a writer acting mid-read). */
    onHold(action: () => void) {
      whenHeld = action;
    },
    afterPiece: async () => {
      if (++pieces > 1) return;
      whenHeld?.();
      reached();
      await released;
    },
  };
}

/** The lines of a streamed body as they arrive, one parsed line at a time. */
function lineReader(stream: Readable) {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buffered = '';
  let text = '';
  return {
    /** Every byte read so far. */
    get text() {
      return text;
    },
    async next(): Promise<Record<string, unknown> | undefined> {
      for (;;) {
        const newline = buffered.indexOf('\n');
        if (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          return JSON.parse(line) as Record<string, unknown>;
        }
        const chunk = await iterator.next();
        if (chunk.done) return undefined;
        const piece = chunk.value.toString('utf8');
        buffered += piece;
        text += piece;
      }
    },
    async rest(): Promise<string> {
      while ((await this.next()) !== undefined);
      return text;
    },
  };
}

async function streamSnapshot(env: TestEnv, id: string) {
  const response = await env.app.inject({
    method: 'GET',
    url: `/api/sessions/${id}`,
    headers: AUTH,
    payloadAsStream: true,
  });
  expect(response.statusCode).toBe(200);
  return lineReader(response.stream());
}

/** Reads lines until the first `read` line: what the browser has while the read is held. */
async function untilRead(reader: ReturnType<typeof lineReader>) {
  const head = (await reader.next()) as SessionSnapshotHead;
  let nodes = 0;
  for (;;) {
    const line = await reader.next();
    if (!line) throw new Error('the stream ended before any read line');
    if ('read' in line) return { head, nodes, read: line.read as number };
    if ('count' in line) nodes += line.count as number;
    else throw new Error(`unexpected line before the read line: ${JSON.stringify(line)}`);
  }
}

function closingOf(body: string): SnapshotClosingLine {
  return snapshotBodyLines(body).at(-1) as SnapshotClosingLine;
}

let env: TestEnv | undefined;
let warmEnv: TestEnv | undefined;
afterEach(async () => {
  for (const release of gates.splice(0)) release();
  await env?.close();
  await warmEnv?.close();
  env = warmEnv = undefined;
});

const FIXTURES = fs
  .readdirSync(FIXTURES_DIR)
  .filter((name) => name.endsWith('.jsonl'))
  .sort();

describe('the snapshot of a session the server is still reading', () => {
  it.each(FIXTURES)(
    '%s: streams the head, the nodes of the first piece and the bytes read while the read is held, and assembles to exactly the snapshot of the open session',
    async (name) => {
      const gate = heldAtFirstPiece();
      env = await setup([name], { pieceBytes: PIECE_BYTES, afterPiece: gate.afterPiece });
      const id = await sessionIdOf(env.app, name);
      const size = fs.statSync(env.file(name)).size;
      const reader = await streamSnapshot(env, id);
      // An empty file has no piece to be held after: its read may be over before the stream starts.
      if (size > 0) {
        await gate.atGate;
        const held = await untilRead(reader);
        expect(held.head.session.id).toBe(id);
        expect(held.head.bytes).toBe(size);
        expect(held.head.nodeCount).toBeUndefined();
        expect(held.read).toBe(Math.min(PIECE_BYTES, size));
      }
      gate.release();
      const streamed = assembleSnapshot(await reader.rest());
      // The same session, read by a server that has it open: the closing line put the labels on.
      const open = await getSnapshot(env.app, id);
      expect(streamed).toEqual(open);
      // A legacy file is migrated in memory with new ids, an empty one gets a new header in
      // memory: another server's would differ.
      if (name.startsWith('legacy-') || size === 0) return;
      warmEnv = await setup([name]);
      const warm = await getSnapshot(warmEnv.app, await sessionIdOf(warmEnv.app, name));
      expect({ ...streamed, session: undefined }).toEqual({ ...warm, session: undefined });
    },
  );

  it('sends in its closing line the nodes whose row a later line changed: a label entry after its target', async () => {
    const gate = heldAtFirstPiece();
    env = await setup(['seed-example.jsonl'], { pieceBytes: PIECE_BYTES, afterPiece: gate.afterPiece });
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const reader = await streamSnapshot(env, id);
    await gate.atGate;
    await untilRead(reader);
    gate.release();
    const closing = closingOf(await reader.rest());
    if (!('end' in closing)) throw new Error(JSON.stringify(closing));
    expect(closing.end.changed.labels.length).toBeGreaterThan(0);
    expect(closing.end.changed.count).toBeGreaterThan(0);
  });

  it('serves every request made during the read from the one read', async () => {
    const gate = heldAtFirstPiece();
    env = await setup(['all-entry-types.jsonl'], { pieceBytes: PIECE_BYTES, afterPiece: gate.afterPiece });
    const id = await sessionIdOf(env.app, 'all-entry-types.jsonl');
    const size = fs.statSync(env.file('all-entry-types.jsonl')).size;
    const first = await streamSnapshot(env, id);
    await gate.atGate;
    const second = await streamSnapshot(env, id);
    await untilRead(first);
    await untilRead(second);
    gate.release();
    const [a, b] = [assembleSnapshot(await first.rest()), assembleSnapshot(await second.rest())];
    expect(a).toEqual(b);
    expect(gate.pieces).toBe(Math.ceil(size / PIECE_BYTES));
  });

  it('takes lines appended during the read into the snapshot (the open catches up before its end)', async () => {
    const gate = heldAtFirstPiece();
    env = await setup(['seed-example.jsonl', 'many-branches.jsonl'], {
      pieceBytes: PIECE_BYTES,
      afterPiece: gate.afterPiece,
    });
    const file = env.file('seed-example.jsonl');
    const extra = fs.readFileSync(env.file('many-branches.jsonl'), 'utf8').split('\n').slice(1).join('\n');
    gate.onHold(() => fs.appendFileSync(file, extra));
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const reader = await streamSnapshot(env, id);
    await gate.atGate;
    await untilRead(reader);
    gate.release();
    const streamed = assembleSnapshot(await reader.rest());
    warmEnv = await setup([]);
    fs.copyFileSync(file, path.join(warmEnv.root, 'seed-example.jsonl'));
    await warmEnv.restart();
    const warm = await getSnapshot(warmEnv.app, await sessionIdOf(warmEnv.app, 'seed-example.jsonl'));
    expect(streamed.nodes.length).toBeGreaterThan(9);
    expect(streamed.nodes).toEqual(warm.nodes);
    // The leaf stays where the read left it: the appended lines do not continue from it.
    expect(streamed.leafId).toBe((await getSnapshot(env.app, id)).leafId);
  });

  it('ends with a restart when the file is replaced during the read, and the next snapshot is the new file', async () => {
    const gate = heldAtFirstPiece();
    env = await setup(['all-entry-types.jsonl', 'many-branches.jsonl'], {
      pieceBytes: PIECE_BYTES,
      afterPiece: gate.afterPiece,
    });
    const file = env.file('all-entry-types.jsonl');
    gate.onHold(() => {
      const replacement = `${file}.new`;
      fs.copyFileSync(env!.file('many-branches.jsonl'), replacement);
      fs.renameSync(replacement, file);
    });
    const id = await sessionIdOf(env.app, 'all-entry-types.jsonl');
    const reader = await streamSnapshot(env, id);
    await gate.atGate;
    const held = await untilRead(reader);
    expect(held.nodes).toBeGreaterThan(0);
    gate.release();
    expect(closingOf(await reader.rest())).toEqual({
      restart: { message: 'The session file changed while it was read.' },
    });
    const again = await getSnapshot(env.app, id);
    const direct = await getSnapshot(env.app, await sessionIdOf(env.app, 'many-branches.jsonl'));
    expect(again.nodes).toEqual(direct.nodes);
  });

  it('ends with an error line when the read fails half-way, and a later request reads the session afresh', async () => {
    let fail = true;
    env = await setup(['seed-example.jsonl'], {
      pieceBytes: PIECE_BYTES,
      afterPiece: () => {
        if (fail) {
          fail = false;
          throw new Error('disk on fire');
        }
      },
    });
    const id = await sessionIdOf(env.app, 'seed-example.jsonl');
    const reader = await streamSnapshot(env, id);
    const body = await reader.rest();
    expect(closingOf(body)).toEqual({
      error: { code: 'INTERNAL_ERROR', message: expect.any(String) as string },
    });
    expect(JSON.stringify(closingOf(body))).not.toContain('disk on fire');
    const after = await getSnapshot(env.app, id);
    warmEnv = await setup(['seed-example.jsonl']);
    const warm = await getSnapshot(warmEnv.app, await sessionIdOf(warmEnv.app, 'seed-example.jsonl'));
    expect(after.nodes).toEqual(warm.nodes);
  });

  it('reads an archive (decompressed whole) through the same stream', async () => {
    env = await setup([]);
    const text = fs.readFileSync(path.join(FIXTURES_DIR, 'seed-example.jsonl'));
    fs.writeFileSync(path.join(env.root, 'seed-example.jsonl.gz'), zlib.gzipSync(text));
    await env.restart();
    warmEnv = await setup(['seed-example.jsonl']);
    const archived = await getSnapshot(env.app, await sessionIdOf(env.app, 'seed-example.jsonl.gz'));
    const plain = await getSnapshot(warmEnv.app, await sessionIdOf(warmEnv.app, 'seed-example.jsonl'));
    expect(archived.nodes).toEqual(plain.nodes);
    expect(archived.leafId).toBe(plain.leafId);
  });
});
