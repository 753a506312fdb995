import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as reference from '@mariozechner/pi-coding-agent';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ARCHIVE_CUSTOM_TYPE,
  ArchiveLedger,
  archiveRecordOf,
  archiveRefusal,
  isAncestorOrSelf,
  withArchiveTarget,
} from './archive';
import { buildSessionContext } from './context';
import { SessionManager } from './session-manager';
import { ViewFlags } from './tree-view/row-format';
import { EntryBuilder } from './tree-view/testing';
import type { SessionEntry } from './types';
import { assistantMsg } from '../test/messages';
import * as pi16 from '../test/pi16';

function clock(): () => number {
  let now = Date.UTC(2026, 0, 1);
  return () => (now += 1000);
}

/** root u1 ─ a1 ─┬─ u2 ─ a2 (abandoned)  and  ├─ u3 ─ a3 (the leaf). */
function forkedSession(): { sm: SessionManager; ids: Record<string, string> } {
  const sm = SessionManager.inMemory('/work', { now: clock() });
  const ids: Record<string, string> = {};
  ids.u1 = sm.appendMessage({ role: 'user', content: 'hello', timestamp: 1 });
  ids.a1 = sm.appendMessage(assistant('hi'));
  ids.u2 = sm.appendMessage({ role: 'user', content: 'try this', timestamp: 3 });
  ids.a2 = sm.appendMessage(assistant('that'));
  sm.branch(ids.a1);
  ids.u3 = sm.appendMessage({ role: 'user', content: 'try that', timestamp: 5 });
  ids.a3 = sm.appendMessage(assistant('this'));
  return { sm, ids };
}

const assistant = (text: string) => assistantMsg(text, { model: 'claude', timestamp: 2 });

function ledgerOf(entries: readonly SessionEntry[]): ArchiveLedger {
  const ledger = new ArchiveLedger();
  for (const entry of entries) ledger.add(entry);
  return ledger;
}

describe('archive records', () => {
  it("reads Canopy's custom entry and oh-my-pi's archive entry, and nothing malformed", () => {
    const b = new EntryBuilder();
    b.add('custom', 'c1', null, { customType: ARCHIVE_CUSTOM_TYPE, data: { targetId: 't', archived: true } });
    b.add('archive', 'o1', 'c1', { targetId: 't', archived: false });
    b.add('custom', 'c2', 'o1', { customType: ARCHIVE_CUSTOM_TYPE, data: { targetId: 't' } });
    b.add('custom', 'c3', 'c2', { customType: 'other', data: { targetId: 't', archived: true } });
    b.add('archive', 'o2', 'c3', { targetId: 7, archived: true });
    expect(b.entries.map(archiveRecordOf)).toEqual([
      { entryId: 'c1', targetId: 't', archived: true, writer: 'canopy' },
      { entryId: 'o1', targetId: 't', archived: false, writer: 'omp' },
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('the latest record for a target wins, and a restore is another record', () => {
    const { sm, ids } = forkedSession();
    sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: ids.u2, archived: true });
    expect(ledgerOf(sm.getEntries()).isArchived(ids.u2!)).toBe(true);
    sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: ids.u2, archived: false });
    const ledger = ledgerOf(sm.getEntries());
    expect(ledger.isArchived(ids.u2!)).toBe(false);
    expect(ledger.archivedTargets()).toEqual([]);
    sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: ids.u2, archived: true });
    expect(ledgerOf(sm.getEntries()).archivedTargets()).toEqual([ids.u2]);
    // Nothing was rewritten: three records, appended.
    expect(sm.getEntries().filter((e) => archiveRecordOf(e) !== undefined)).toHaveLength(3);
  });

  it('an oh-my-pi record after a Canopy one overrides it, and the other way round', () => {
    const b = new EntryBuilder();
    b.add('custom', 'c1', null, { customType: ARCHIVE_CUSTOM_TYPE, data: { targetId: 't', archived: true } });
    b.add('archive', 'o1', 'c1', { targetId: 't', archived: false });
    expect(ledgerOf(b.entries).isArchived('t')).toBe(false);
    b.add('custom', 'c2', 'o1', { customType: ARCHIVE_CUSTOM_TYPE, data: { targetId: 't', archived: true } });
    expect(ledgerOf(b.entries).recordFor('t')?.entryId).toBe('c2');
  });

  it('refuses to archive the branch that holds the leaf, and unknown entries', () => {
    const { sm, ids } = forkedSession();
    const shape = {
      has: (id: string) => sm.getEntry(id) !== undefined,
      parentOf: (id: string) => sm.getShape(id)?.parentId,
    };
    const leaf = sm.getLeafId();
    expect(archiveRefusal(shape, ids.u2!, true, leaf)).toBeUndefined();
    for (const onPath of [ids.u1!, ids.a1!, ids.u3!, ids.a3!]) {
      const refusal = archiveRefusal(shape, onPath, true, leaf);
      expect(refusal?.code).toBe('ACTIVE_PATH');
      expect(refusal?.message).toMatch(/current leaf/);
    }
    // Restoring is never refused for the path: it only shows.
    expect(archiveRefusal(shape, ids.a1!, false, leaf)).toBeUndefined();
    expect(archiveRefusal(shape, 'nope', true, leaf)?.code).toBe('ENTRY_NOT_FOUND');
    expect(archiveRefusal(shape, 'nope', false, leaf)?.code).toBe('ENTRY_NOT_FOUND');
  });

  it("finds an ancestor on a damaged file's cycle, and ends the walk on a cycle without it", () => {
    // c0 → c1 → c2 → c3 → c1 (a cycle of three under a tail of one), as parent links.
    const parents: Record<string, string> = { c0: 'c1', c1: 'c2', c2: 'c3', c3: 'c1' };
    const shape = { has: (id: string) => id in parents, parentOf: (id: string) => parents[id] ?? null };
    for (const id of ['c0', 'c1', 'c2', 'c3']) expect(isAncestorOrSelf(shape, id, 'c0')).toBe(true);
    expect(isAncestorOrSelf(shape, 'elsewhere', 'c0')).toBe(false);
    expect(isAncestorOrSelf(shape, 'c0', 'c2')).toBe(false);
    // A self-loop, and a plain chain to a root.
    expect(isAncestorOrSelf({ has: () => true, parentOf: () => 's' }, 'x', 's')).toBe(false);
    const chain: Record<string, string | null> = { a: null, b: 'a', c: 'b' };
    const line = { has: (id: string) => id in chain, parentOf: (id: string) => chain[id] ?? null };
    expect(isAncestorOrSelf(line, 'a', 'c')).toBe(true);
    expect(isAncestorOrSelf(line, 'c', 'a')).toBe(false);
    expect(isAncestorOrSelf(line, 'a', null)).toBe(false);
  });

  it('reports records whose target the session lacks, without failing', () => {
    const b = new EntryBuilder();
    b.user('u1', null);
    b.add('custom', 'c1', 'u1', {
      customType: ARCHIVE_CUSTOM_TYPE,
      data: { targetId: 'gone', archived: true },
    });
    b.add('custom', 'c2', 'c1', {
      customType: ARCHIVE_CUSTOM_TYPE,
      data: { targetId: 'u1', archived: false },
    });
    const ids = new Set(b.entries.map((e) => e.id));
    const ledger = ledgerOf(b.entries);
    expect(ledger.unknownTargets((id) => ids.has(id))).toEqual(['gone']);
    expect(ledger.isArchived('gone')).toBe(true);
  });
});

describe('withArchiveTarget', () => {
  it('sets and clears only the ArchiveTarget bit', () => {
    const other = ViewFlags.HasThinking | ViewFlags.Error;
    expect(withArchiveTarget(other, true)).toBe(other | ViewFlags.ArchiveTarget);
    expect(withArchiveTarget(other | ViewFlags.ArchiveTarget, false)).toBe(other);
    expect(withArchiveTarget(other, false)).toBe(other);
  });
});

describe('archive records in files read by the reference packages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'canopy-archive-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The file with its archive records, and the same file without them. */
  function files(): { withRecords: string; without: string; sm: SessionManager } {
    const { sm, ids } = forkedSession();
    sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: ids.u2, archived: true });
    sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: ids.u2, archived: false });
    sm.appendCustomEntry(ARCHIVE_CUSTOM_TYPE, { targetId: ids.u2, archived: true });
    const text = sm.toJsonl();
    const kept = text
      .split('\n')
      .filter((line) => !line.includes(`"customType":"${ARCHIVE_CUSTOM_TYPE}"`))
      .join('\n');
    const withRecords = join(dir, `with-${Math.random().toString(36).slice(2)}.jsonl`);
    const without = join(dir, `without-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(withRecords, text);
    writeFileSync(without, kept);
    return { withRecords, without, sm };
  }

  it('pi 1.6 builds the same context with the records as without them', () => {
    const { withRecords, without } = files();
    const a = pi16.SessionManager.open(withRecords, dir).buildSessionContext();
    const b = pi16.SessionManager.open(without, dir).buildSessionContext();
    expect(a.messages.length).toBe(4);
    expect(a).toEqual(b);
  });

  it('pi 0.73.1 builds the same context with the records as without them', () => {
    const { withRecords, without } = files();
    const a = reference.SessionManager.open(withRecords, dir).buildSessionContext();
    const b = reference.SessionManager.open(without, dir).buildSessionContext();
    expect(a.messages.length).toBe(4);
    expect(a).toEqual(b);
  });

  it("session-core's pi and oh-my-pi contexts are the same with the records as without them", () => {
    const { sm } = files();
    const entries = sm.getEntries();
    const leaf = sm.getLeafId();
    const plain = entries.filter((e) => archiveRecordOf(e) === undefined);
    const plainLeaf = plain[plain.length - 1]!.id;
    for (const dialect of ['pi', 'omp'] as const) {
      expect(buildSessionContext(entries, leaf, undefined, { dialect })).toEqual(
        buildSessionContext(plain, plainLeaf, undefined, { dialect }),
      );
    }
    // oh-my-pi's own record type too (read by oh-my-pi as an unknown, context-free entry).
    const omp = [
      ...plain,
      {
        type: 'archive',
        id: 'omp1',
        parentId: plainLeaf,
        timestamp: plain[0]!.timestamp,
        targetId: plain[2]!.id,
        archived: true,
      } as unknown as SessionEntry,
    ];
    expect(buildSessionContext(omp, 'omp1', undefined, { dialect: 'omp' })).toEqual(
      buildSessionContext(plain, plainLeaf, undefined, { dialect: 'omp' }),
    );
  });
});
