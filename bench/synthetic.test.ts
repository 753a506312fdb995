// The synthetic session generator: deterministic, the asked-for number of entries, a valid v3 file that
// session-core loads without issues, and the tree features the benchmark is meant to exercise.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SessionManager } from '../packages/session-core/src/index';
import type { SessionEntry } from '../packages/session-core/src/index';
import { emptySyntheticStats, syntheticJsonl, writeSyntheticSession } from './synthetic';

const dir = mkdtempSync(join(tmpdir(), 'canopy-synthetic-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('synthetic sessions', () => {
  test('the same seed and options give the same file; another seed gives another one', () => {
    const a = syntheticJsonl({ entries: 500, seed: 7 });
    expect(syntheticJsonl({ entries: 500, seed: 7 })).toBe(a);
    expect(syntheticJsonl({ entries: 500, seed: 8 })).not.toBe(a);
  });

  test('a realistic session has exactly the asked-for entries and loads in session-core without issues', () => {
    const stats = emptySyntheticStats();
    const text = syntheticJsonl({ entries: 3_000, seed: 3 }, stats);
    const session = SessionManager.fromJsonl(text);
    expect(session.issues).toEqual([]);
    expect(session.version).toBe(3);
    const entries = session.getEntries();
    expect(entries).toHaveLength(3_000);
    expect(stats.entries).toBe(3_000);
    expect(session.getLeafId()).toBe(stats.leafId);
    expect(text.split('\n')).toHaveLength(3_002);
  });

  test('its statistics match the tree: branch points, labels, compactions and branch summaries', () => {
    const stats = emptySyntheticStats();
    const session = SessionManager.fromJsonl(syntheticJsonl({ entries: 5_000, seed: 11 }, stats));
    const entries = session.getEntries();
    const ofType = (type: string) => entries.filter((entry) => entry.type === type);

    const forks = entries.filter((entry) => session.getChildren(entry.id).length > 1);
    expect(forks).toHaveLength(stats.branchPoints);
    expect(stats.branchPoints).toBeGreaterThan(0);
    expect(ofType('label')).toHaveLength(stats.labels);
    expect(ofType('compaction')).toHaveLength(stats.compactions);
    expect(ofType('branch_summary')).toHaveLength(stats.branchSummaries);
    expect(stats.labels * stats.compactions * stats.branchSummaries).toBeGreaterThan(0);

    // Every compaction keeps from an entry on its own path; every summary sits where it says it branched from.
    for (const compaction of ofType('compaction')) {
      const path = session.getBranch(compaction.id).map((entry) => entry.id);
      expect(path).toContain(compaction.firstKeptEntryId);
    }
    for (const summary of ofType('branch_summary')) {
      expect(summary.fromId).toBe(summary.parentId ?? 'root');
    }
    // Tool results answer the tool call right before them.
    const results = entries.filter(
      (entry) => entry.type === 'message' && (entry.message as { role: string }).role === 'toolResult',
    );
    expect(results.length).toBeGreaterThan(1_000);
    const toolCallIds = new Set(
      entries.flatMap((entry: SessionEntry) =>
        entry.type === 'message' && (entry.message as { role: string }).role === 'assistant'
          ? (entry.message as { content: { type: string; id?: string }[] }).content
              .filter((block) => block.type === 'toolCall')
              .map((block) => block.id)
          : [],
      ),
    );
    for (const result of results) {
      expect(toolCallIds.has((result.message as { toolCallId: string }).toolCallId)).toBe(true);
    }
  });

  test('realistic entries average about 2 KB, so 50,000 entries make a file of about 100 MB', () => {
    const text = syntheticJsonl({ entries: 5_000, seed: 1 });
    const perEntry = Buffer.byteLength(text) / 5_000;
    expect(perEntry).toBeGreaterThan(1_600);
    expect(perEntry).toBeLessThan(2_400);
  });

  test('a chain is one path as long as the file, a fan-out hangs every entry from the first', () => {
    const chain = SessionManager.fromJsonl(syntheticJsonl({ entries: 20_000, shape: 'chain' }));
    expect(chain.getBranch()).toHaveLength(20_000);
    const fanout = SessionManager.fromJsonl(syntheticJsonl({ entries: 20_000, shape: 'fanout' }));
    const first = fanout.getEntries()[0] as SessionEntry;
    expect(fanout.getChildren(first.id)).toHaveLength(19_999);
    expect(fanout.getTree()).toHaveLength(1);
  });

  test('writeSyntheticSession streams the same bytes and reports their size', async () => {
    const path = join(dir, 'written.jsonl');
    const stats = await writeSyntheticSession(path, { entries: 2_000, seed: 5 });
    const written = readFileSync(path);
    expect(written.toString('utf8')).toBe(syntheticJsonl({ entries: 2_000, seed: 5 }));
    expect(stats.bytes).toBe(written.length);
    expect(stats.entries).toBe(2_000);
  });
});
