import { describe, expect, it } from 'vitest';
import {
  collectEntriesForBranchSummary,
  collectIdsForBranchSummary,
  getUserMessagesForForking,
  planNavigation,
  type NavigationTree,
} from './navigation';
import type { SessionEntry } from './types';
import { SessionManager } from './session-manager';
import { utf8Encode } from './parse';
import { entryFactory, userMsg } from '../test/messages';
import { bytesReader } from '../test/retention';

const entry = entryFactory();

function user(id: string, parentId: string | null, content: unknown): SessionEntry {
  return entry('message', id, parentId, { message: { role: 'user', content, timestamp: 0 } });
}

function assistant(id: string, parentId: string | null, text: string): SessionEntry {
  return entry('message', id, parentId, {
    message: {
      role: 'assistant',
      content: [{ type: 'text', text }],
      provider: 'p',
      model: 'm',
      timestamp: 0,
    },
  });
}

/** A minimal read-only tree over the entries, with the reference's getBranch walk (cycle-guarded). */
function treeOf(entries: SessionEntry[]): NavigationTree {
  const byId = new Map(entries.map((e) => [e.id, e] as const));
  return {
    getEntry: (id) => byId.get(id),
    getShape: (id) => byId.get(id),
    getBranchShapes: (id) => {
      const path: SessionEntry[] = [];
      const seen = new Set<string>();
      let current = id ? byId.get(id) : undefined;
      while (current && !seen.has(current.id)) {
        seen.add(current.id);
        path.push(current);
        current = current.parentId ? byId.get(current.parentId) : undefined;
      }
      return path.reverse();
    },
  };
}

function ids(entries: SessionEntry[]): string[] {
  return entries.map((e) => e.id);
}

describe('collectEntriesForBranchSummary', () => {
  // 1 → 2 → 3 → 4 (old leaf on the main line), 2 → 5 → 6 (a sibling branch), and a second root 7 → 8.
  const entries = [
    user('1', null, 'start'),
    assistant('2', '1', 'r1'),
    user('3', '2', 'main'),
    entry('compaction', '4', '3', { summary: 'S', firstKeptEntryId: '3', tokensBefore: 5 }),
    user('5', '2', 'side'),
    assistant('6', '5', 'side r'),
    user('7', null, 'other root'),
    assistant('8', '7', 'other r'),
  ];
  const tree = treeOf(entries);

  it('abandons nothing when there is no old leaf', () => {
    expect(collectEntriesForBranchSummary(tree, null, '3')).toEqual({ entries: [], commonAncestorId: null });
  });

  it('collects the entries below an ancestor target, the target excluded, compactions included', () => {
    const result = collectEntriesForBranchSummary(tree, '4', '2');
    expect(result.commonAncestorId).toBe('2');
    expect(ids(result.entries)).toEqual(['3', '4']);
  });

  it('abandons nothing when the target is a descendant of the old leaf', () => {
    const result = collectEntriesForBranchSummary(tree, '2', '4');
    expect(result).toEqual({ entries: [], commonAncestorId: '2' });
  });

  it('collects a sibling branch from below the fork point to the old leaf, oldest first', () => {
    const result = collectEntriesForBranchSummary(tree, '6', '4');
    expect(result.commonAncestorId).toBe('2');
    expect(ids(result.entries)).toEqual(['5', '6']);
  });

  it('collects the whole old path with a null ancestor when the roots differ', () => {
    const result = collectEntriesForBranchSummary(tree, '6', '8');
    expect(result.commonAncestorId).toBeNull();
    expect(ids(result.entries)).toEqual(['1', '2', '5', '6']);
  });

  it('abandons nothing when the target is the old leaf', () => {
    expect(collectEntriesForBranchSummary(tree, '6', '6')).toEqual({ entries: [], commonAncestorId: '6' });
  });

  it('terminates on an old path that runs into a parent cycle', () => {
    const cyclic = [entry('custom', 'a', 'b'), entry('custom', 'b', 'a'), user('t', null, 'elsewhere')];
    const result = collectEntriesForBranchSummary(treeOf(cyclic), 'a', 't');
    expect(result.commonAncestorId).toBeNull();
    expect(ids(result.entries)).toEqual(['b', 'a']);
  });

  it('handles a 200,000-entry chain', () => {
    const chain: SessionEntry[] = [];
    for (let i = 0; i < 200_000; i++) chain.push(entry('custom', `e${i}`, i === 0 ? null : `e${i - 1}`));
    const result = collectEntriesForBranchSummary(treeOf(chain), 'e199999', 'e0');
    expect(result.commonAncestorId).toBe('e0');
    expect(result.entries).toHaveLength(199_999);
    expect(result.entries[0]?.id).toBe('e1');
  });
});

describe('collectIdsForBranchSummary', () => {
  it('finds the abandoned path from the index alone: a session keeping only its index reads nothing back', () => {
    const writer = SessionManager.inMemory('/w');
    const written: string[] = [];
    for (let i = 0; i < 300; i++) written.push(writer.appendMessage(userMsg(`question ${i}`)));
    const bytes = utf8Encode(writer.toJsonl());
    const reader = bytesReader(bytes);
    const sm = SessionManager.fromJsonl(bytes, { retain: 'index', readRange: reader });
    expect(collectIdsForBranchSummary(sm, written[299]!, written[9]!)).toEqual({
      ids: written.slice(10),
      commonAncestorId: written[9],
    });
    // Before, the whole path was read back to find these ids: a 1 GB session's whole file at worst.
    expect(reader.reads).toBe(0);
    // The entries are those ids read back, one read each.
    const { entries } = collectEntriesForBranchSummary(sm, written[299]!, written[9]!);
    expect(ids(entries)).toEqual(written.slice(10));
    expect(reader.reads).toBe(290);
  });
});

describe('planNavigation', () => {
  it('moves to the parent of a user message and returns its text', () => {
    expect(planNavigation(user('u', 'p', 'ask again'))).toEqual({ newLeafId: 'p', editorText: 'ask again' });
  });

  it('moves to null for a root user message', () => {
    expect(planNavigation(user('u', null, 'first'))).toEqual({ newLeafId: null, editorText: 'first' });
  });

  it('joins text blocks of a user message and ignores images', () => {
    const content = [
      { type: 'text', text: 'look at ' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: 'this' },
    ];
    expect(planNavigation(user('u', 'p', content))).toEqual({ newLeafId: 'p', editorText: 'look at this' });
  });

  it('returns an empty editor text for a user message without text', () => {
    expect(planNavigation(user('u', 'p', ''))).toEqual({ newLeafId: 'p', editorText: '' });
  });

  it('moves to the parent of a custom_message and returns its content text', () => {
    const custom = entry('custom_message', 'c', 'p', {
      customType: 'k',
      content: [{ type: 'text', text: 'hi' }],
      display: true,
    });
    expect(planNavigation(custom)).toEqual({ newLeafId: 'p', editorText: 'hi' });
  });

  it('moves onto every other entry itself with no editor text', () => {
    const others: SessionEntry[] = [
      assistant('a', 'p', 'r'),
      entry('message', 'tr', 'p', {
        message: {
          role: 'toolResult',
          toolCallId: 't',
          toolName: 'read',
          content: [],
          isError: false,
          timestamp: 0,
        },
      }),
      entry('message', 'bx', 'p', {
        message: {
          role: 'bashExecution',
          command: 'ls',
          output: '',
          exitCode: 0,
          cancelled: false,
          truncated: false,
        },
      }),
      entry('message', 'cm', 'p', {
        message: { role: 'custom', customType: 'k', content: 'x', display: true },
      }),
      entry('compaction', 'c', 'p', { summary: 's', firstKeptEntryId: 'p', tokensBefore: 1 }),
      entry('branch_summary', 'b', 'p', { summary: 's', fromId: 'p' }),
      entry('label', 'l', 'p', { targetId: 'p', label: 'x' }),
      entry('custom', 'cu', 'p', { customType: 'k' }),
      entry('model_change', 'm', 'p', { provider: 'x', modelId: 'y' }),
      entry('thinking_level_change', 't', 'p', { thinkingLevel: 'high' }),
      entry('session_info', 'si', 'p', { name: 'n' }),
      entry('ttsr_injection', 'tt', 'p', { injectedRules: [] }),
      entry('mode_change', 'mc', 'p', { mode: 'plan' }),
      entry('future_type', 'f', 'p'),
    ];
    for (const target of others) expect(planNavigation(target)).toEqual({ newLeafId: target.id });
  });
});

describe('getUserMessagesForForking', () => {
  it('lists user messages with text in file order across all branches', () => {
    const entries = [
      user('1', null, 'first'),
      assistant('2', '1', 'r'),
      user('3', '2', [{ type: 'text', text: 'on main' }]),
      user('4', '2', 'on side'),
      user('5', '4', ''),
      user('6', '4', [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }]),
      entry('custom_message', '7', '4', { customType: 'k', content: 'not a user message', display: true }),
    ];
    expect(getUserMessagesForForking(entries)).toEqual([
      { entryId: '1', text: 'first' },
      { entryId: '3', text: 'on main' },
      { entryId: '4', text: 'on side' },
    ]);
  });

  it('gives an empty list when there are no user messages', () => {
    expect(getUserMessagesForForking([assistant('a', null, 'r')])).toEqual([]);
  });
});
