// The family of a session (docs/archive-and-family.md#family-of-a-session): 50 files, 500,000
// entries in all, a 10,000-entry root and 49 forks of it (pi's createBranchedSession layout: the
// copied path keeps its ids and timestamps, the header is newer), each grafted at a different depth.
// Timed: the route's work, every head read (bounded) and the forest built. Goal 1 s.
// Also timed (callSiteBench, docs/archive-and-family.md#subagent-lanes): the worst case of finding
// where subagents started, a parent that is not open and is larger than the scan's cap (64 MB read,
// only the lines holding `"task"` and a stem parsed), for 20 subagents.
// Run alone: `npx tsx bench/family.bench.ts`; `npm run bench` adds its rows.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFamilyForest, familyOf, type FamilyFileHead } from '../packages/session-core/src/index';
import { readFamilyHead } from '../apps/server/src/files/family-heads';
import { CALL_SITE_MAX_BYTES, callSitesIn } from '../apps/server/src/operations/call-sites';
import type { SessionStore } from '../apps/server/src/session-store';

const FILES = 50;
const PER_FILE = 10_000;
const T0 = Date.UTC(2026, 0, 1);
const FORKED_AT = Date.UTC(2026, 1, 1);

function entryLine(id: string, parentId: string | null, at: number, i: number): string {
  const role = i % 2 === 0 ? 'user' : 'assistant';
  const text = `${role} turn ${i}: ${'some words of the conversation '.repeat(6)}`;
  return JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: new Date(at).toISOString(),
    message: { role, content: [{ type: 'text', text }], timestamp: at },
  });
}

function writeFamily(dir: string): string[] {
  const root = join(dir, '2026-01-01T00-00-00-000Z_root.jsonl');
  const header = (id: string, at: number, parent?: string) =>
    JSON.stringify({
      type: 'session',
      version: 3,
      id,
      timestamp: new Date(at).toISOString(),
      cwd: '/w',
      ...(parent ? { parentSession: parent } : {}),
    });
  const rootLines = [header('root', T0)];
  for (let i = 0; i < PER_FILE; i++)
    rootLines.push(entryLine(`r${i}`, i ? `r${i - 1}` : null, T0 + i * 1000, i));
  writeFileSync(root, rootLines.join('\n') + '\n');
  const files = [root];
  for (let k = 1; k < FILES; k++) {
    const graft = (k * 197) % PER_FILE;
    const lines = [header(`fork${k}`, FORKED_AT + k, root)];
    for (let i = 0; i <= graft; i++) lines.push(rootLines[i + 1]!);
    for (let i = graft + 1; i < PER_FILE; i++) {
      const parent = i === graft + 1 ? `r${graft}` : `f${k}-${i - 1}`;
      lines.push(entryLine(`f${k}-${i}`, parent, FORKED_AT + k + i * 1000, i));
    }
    const file = join(dir, `2026-02-01T00-00-00-${String(k).padStart(3, '0')}Z_fork${k}.jsonl`);
    writeFileSync(file, lines.join('\n') + '\n');
    files.push(file);
  }
  return files;
}

export async function familyBench(
  runs: number,
): Promise<{ familyMs: number; files: number; entries: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'canopy-family-bench-'));
  try {
    const files = writeFamily(dir);
    const samples: number[] = [];
    for (let run = 0; run < Math.max(1, runs); run++) {
      const t0 = performance.now();
      const heads = await Promise.all(
        files.map(async (file, index): Promise<FamilyFileHead> => {
          const { reader, complete } = await readFamilyHead(file);
          const parsed = reader.parsed;
          return {
            key: String(index),
            file,
            ...(parsed.sessionId ? { sessionId: parsed.sessionId } : {}),
            ...(parsed.headerTimestamp ? { headerTimestamp: parsed.headerTimestamp } : {}),
            ...(parsed.parentSession ? { parentPath: parsed.parentSession } : {}),
            archived: false,
            head: parsed.head,
            headComplete: complete,
            entryCount: PER_FILE,
            lastActivity: index,
          };
        }),
      );
      const family = familyOf(buildFamilyForest(heads), '0');
      samples.push(performance.now() - t0);
      const wrong = family.filter((m, i) => i > 0 && m.graftId !== `r${(Number(m.key) * 197) % PER_FILE}`);
      if (family.length !== FILES || wrong.length > 0) throw new Error('the family bench grafted wrongly');
    }
    samples.sort((a, b) => a - b);
    return { familyMs: samples[Math.floor(samples.length / 2)]!, files: FILES, entries: FILES * PER_FILE };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SUBAGENTS = 20;

/** A parent past the scan cap: turns of text, and every 5,000th entry a task call and its result. */
function writeLargeParent(file: string): number {
  const lines = [
    JSON.stringify({
      type: 'session',
      version: 3,
      id: 'big',
      timestamp: new Date(T0).toISOString(),
      cwd: '/w',
    }),
  ];
  let bytes = lines[0]!.length + 1;
  let parent: string | null = null;
  let task = 0;
  for (let i = 0; bytes < CALL_SITE_MAX_BYTES + (8 << 20); i++) {
    const id = `e${i}`;
    const at = new Date(T0 + i * 1000).toISOString();
    let line: string;
    if (i % 5000 === 4999 && task < SUBAGENTS) {
      const callId = `call-${task}`;
      line = JSON.stringify({
        type: 'message',
        id,
        parentId: parent,
        timestamp: at,
        message: {
          role: 'assistant',
          content: [
            {
              type: 'toolCall',
              id: callId,
              name: 'task',
              arguments: { name: `Agent${task}`, agent: 'explore', task: 'look' },
            },
          ],
          timestamp: T0 + i * 1000,
        },
      });
      lines.push(line);
      bytes += line.length + 1;
      parent = id;
      line = JSON.stringify({
        type: 'message',
        id: `${id}r`,
        parentId: parent,
        timestamp: at,
        message: {
          role: 'toolResult',
          toolCallId: callId,
          toolName: 'task',
          content: [{ type: 'text', text: 'done' }],
          details: { results: [{ id: `Agent${task}`, agent: 'explore', task: 'look', exitCode: 0 }] },
          isError: false,
          timestamp: T0 + i * 1000,
        },
      });
      task++;
      parent = `${id}r`;
    } else {
      line = entryLine(id, parent, T0 + i * 1000, i);
      parent = id;
    }
    lines.push(line);
    bytes += line.length + 1;
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return bytes;
}

export async function callSiteBench(
  runs: number,
): Promise<{ callSitesMs: number; parentBytes: number; subagents: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'canopy-callsite-bench-'));
  try {
    const file = join(dir, '2026-01-01T00-00-00-000Z_big.jsonl');
    const parentBytes = writeLargeParent(file);
    const notOpen = { isOpen: () => false } as unknown as SessionStore;
    const children = Array.from({ length: SUBAGENTS }, (_, k) => ({
      key: String(k),
      file: join(dir, '2026-01-01T00-00-00-000Z_big', `Agent${k}.jsonl`),
      kind: 'subagent' as const,
      startedAt: new Date(T0 + 200_000_000).toISOString(),
    }));
    const samples: number[] = [];
    for (let run = 0; run < Math.max(1, runs); run++) {
      const t0 = performance.now();
      const sites = await callSitesIn(notOpen, 'big', file, children);
      samples.push(performance.now() - t0);
      const grafted = [...sites.values()].filter((site) => site.graftId !== null).length;
      if (grafted === 0) throw new Error('the call-site bench found no call site');
    }
    samples.sort((a, b) => a - b);
    return { callSitesMs: samples[Math.floor(samples.length / 2)]!, parentBytes, subagents: SUBAGENTS };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('family.bench.ts')) {
  void (async () => {
    const result = await familyBench(5);
    console.log(
      `family of ${result.files} files, ${result.entries} entries: ${result.familyMs.toFixed(0)} ms`,
    );
    const sites = await callSiteBench(5);
    console.log(
      `call sites of ${sites.subagents} subagents in a ${(sites.parentBytes / 2 ** 20).toFixed(0)} MB parent (64 MB read): ${sites.callSitesMs.toFixed(0)} ms`,
    );
  })();
}
