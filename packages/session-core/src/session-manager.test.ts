import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readFixtureCopy, removeFixtureCopies } from '../test/fixtures';
import { MemoryStorage, MemoryStorageProvider } from './storage';
import { SessionManager, SessionWriteError, type InMemoryOptions } from './session-manager';
import type {
  AssistantMessage,
  SessionEntry,
  SessionHeader,
  SessionTreeNode,
  StoredMessage,
  UserMessage,
} from './types';
import { assistantMsg, testUsage, userMsg } from '../test/messages';

const HEADER_V3 =
  '{"type":"session","version":3,"id":"sess-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';

function line(value: Record<string, unknown>): string {
  return JSON.stringify(value);
}

function msgLine(
  id: string,
  parentId: string | null,
  text: string,
  timestamp = '2026-01-01T00:00:01.000Z',
): string {
  return line({
    type: 'message',
    id,
    parentId,
    timestamp,
    message: { role: 'user', content: text, timestamp: 1 },
  });
}

function ids(entries: readonly SessionEntry[]): string[] {
  return entries.map((entry) => entry.id);
}

function findNode(roots: readonly SessionTreeNode[], id: string): SessionTreeNode | undefined {
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    if (node.entry.id === id) return node;
    stack.push(...node.children);
  }
  return undefined;
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * A file that takes a rewrite only as lines (counting them and the longest), refusing one string of
 * the whole file; `failAfter` lines it fails like a full disk, and the file keeps its old content.
 */
class StreamedFile extends MemoryStorage {
  linesConsumed = 0;
  longestLine = 0;
  rewritesAsOneString = 0;
  failAfter: number | undefined;

  override rewrite(text: string): void {
    this.rewritesAsOneString++;
    super.rewrite(text);
  }

  override rewriteLines(lines: Iterable<string>): void {
    const written: string[] = [];
    for (const line of lines) {
      if (written.length === this.failAfter) throw new Error('ENOSPC: disk full');
      this.linesConsumed++;
      this.longestLine = Math.max(this.longestLine, line.length);
      written.push(line);
    }
    super.rewrite(written.map((line) => `${line}\n`).join(''));
  }
}

function storedLines(storage: MemoryStorage): Record<string, unknown>[] {
  return storage
    .read()
    .split('\n')
    .filter((text) => text.length > 0)
    .map((text) => JSON.parse(text) as Record<string, unknown>);
}

function textOf(message: unknown): unknown {
  const value = message as { content?: unknown; summary?: unknown };
  if (typeof value.content === 'string') return value.content;
  if (Array.isArray(value.content)) return (value.content[0] as { text?: unknown } | undefined)?.text;
  return value.summary;
}

describe('tree traversal (docs/reference-tests.md#tree-traversal)', () => {
  it('appendMessage creates entries with the correct parentId chain and returns their ids', () => {
    const session = SessionManager.inMemory();
    const id1 = session.appendMessage(userMsg('first'));
    const id2 = session.appendMessage(assistantMsg('second'));
    const id3 = session.appendMessage(userMsg('third'));
    const entries = session.getEntries();
    expect(entries).toHaveLength(3);
    expect(ids(entries)).toEqual([id1, id2, id3]);
    expect(entries.map((entry) => entry.parentId)).toEqual([null, id1, id2]);
    expect(entries.every((entry) => entry.type === 'message')).toBe(true);
  });

  it('appendThinkingLevelChange integrates into the tree', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    const thinkingId = session.appendThinkingLevelChange('high');
    session.appendMessage(assistantMsg('response'));
    const [, thinking, next] = session.getEntries();
    expect(thinking).toMatchObject({
      type: 'thinking_level_change',
      id: thinkingId,
      parentId: msgId,
      thinkingLevel: 'high',
    });
    expect(next?.parentId).toBe(thinkingId);
  });

  it('appendModelChange stores provider and modelId in a pi session', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    const modelId = session.appendModelChange('openai', 'gpt-4');
    session.appendMessage(assistantMsg('response'));
    const [, change, next] = session.getEntries();
    expect(change).toEqual({
      type: 'model_change',
      id: modelId,
      parentId: msgId,
      timestamp: change?.timestamp,
      provider: 'openai',
      modelId: 'gpt-4',
    });
    expect(next?.parentId).toBe(modelId);
  });

  it('appendModelChange stores "provider/id" and the role in an oh-my-pi session', () => {
    const session = SessionManager.inMemory('/w', { dialect: 'omp' });
    session.appendMessage(userMsg('hello'));
    const plain = session.getEntry(session.appendModelChange('openai/gpt-4'));
    const withRole = session.getEntry(session.appendModelChange('anthropic/claude-haiku', 'smol'));
    expect(plain).not.toHaveProperty('provider');
    expect(plain).toMatchObject({ model: 'openai/gpt-4' });
    expect(plain).not.toHaveProperty('role');
    expect(withRole).toMatchObject({ model: 'anthropic/claude-haiku', role: 'smol' });
  });

  it('appendCompaction integrates into the tree', () => {
    const session = SessionManager.inMemory();
    const id1 = session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    const compactionId = session.appendCompaction('summary', id1, 1000);
    session.appendMessage(userMsg('4'));
    const entries = session.getEntries();
    expect(entries[2]).toMatchObject({
      type: 'compaction',
      id: compactionId,
      parentId: id2,
      summary: 'summary',
      firstKeptEntryId: id1,
      tokensBefore: 1000,
    });
    expect(entries[3]?.parentId).toBe(compactionId);
  });

  it('appendCustomEntry integrates into the tree', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    const customId = session.appendCustomEntry('my_data', { key: 'value' });
    session.appendMessage(assistantMsg('response'));
    const [, custom, next] = session.getEntries();
    expect(custom).toMatchObject({
      type: 'custom',
      id: customId,
      parentId: msgId,
      customType: 'my_data',
      data: { key: 'value' },
    });
    expect(next?.parentId).toBe(customId);
  });

  it('advances the leaf pointer after each append', () => {
    const session = SessionManager.inMemory();
    expect(session.getLeafId()).toBeNull();
    const id1 = session.appendMessage(userMsg('1'));
    expect(session.getLeafId()).toBe(id1);
    const id2 = session.appendMessage(assistantMsg('2'));
    expect(session.getLeafId()).toBe(id2);
    const id3 = session.appendThinkingLevelChange('high');
    expect(session.getLeafId()).toBe(id3);
  });

  it('getBranch returns [] for an empty session, the single entry, the full path, or the path to a given entry', () => {
    const session = SessionManager.inMemory();
    expect(session.getBranch()).toEqual([]);
    const id1 = session.appendMessage(userMsg('1'));
    expect(ids(session.getBranch())).toEqual([id1]);
    const id2 = session.appendMessage(assistantMsg('2'));
    const id3 = session.appendThinkingLevelChange('high');
    const id4 = session.appendMessage(userMsg('4'));
    expect(ids(session.getBranch())).toEqual([id1, id2, id3, id4]);
    expect(ids(session.getBranch(id2))).toEqual([id1, id2]);
  });

  it('getTree is empty for an empty session and a single chain for a linear one', () => {
    const session = SessionManager.inMemory();
    expect(session.getTree()).toEqual([]);
    const id1 = session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    const id3 = session.appendMessage(userMsg('3'));
    const roots = session.getTree();
    expect(roots).toHaveLength(1);
    expect(roots[0]?.entry.id).toBe(id1);
    expect(roots[0]?.children.map((node) => node.entry.id)).toEqual([id2]);
    expect(roots[0]?.children[0]?.children.map((node) => node.entry.id)).toEqual([id3]);
    expect(roots[0]?.children[0]?.children[0]?.children).toEqual([]);
  });

  it('getTree shows a branch point with one child per branch', () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    const id3 = session.appendMessage(userMsg('3'));
    session.branch(id2);
    const id4 = session.appendMessage(userMsg('4-branch'));
    const node2 = findNode(session.getTree(), id2);
    expect(node2?.children.map((node) => node.entry.id).sort()).toEqual([id3, id4].sort());
  });

  it('getTree shows three branches made at the same point', () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    const branches: string[] = [];
    for (const text of ['a', 'b', 'c']) {
      session.branch(id2);
      branches.push(session.appendMessage(userMsg(text)));
    }
    expect(
      findNode(session.getTree(), id2)
        ?.children.map((node) => node.entry.id)
        .sort(),
    ).toEqual(branches.sort());
  });

  it('getTree handles deep branching', () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    const id3 = session.appendMessage(userMsg('3'));
    const id4 = session.appendMessage(assistantMsg('4'));
    session.branch(id2);
    const id5 = session.appendMessage(userMsg('5'));
    const id6 = session.appendMessage(assistantMsg('6'));
    session.branch(id5);
    const id7 = session.appendMessage(assistantMsg('7'));
    const tree = session.getTree();
    expect(
      findNode(tree, id2)
        ?.children.map((node) => node.entry.id)
        .sort(),
    ).toEqual([id3, id5].sort());
    expect(
      findNode(tree, id5)
        ?.children.map((node) => node.entry.id)
        .sort(),
    ).toEqual([id6, id7].sort());
    expect(findNode(tree, id3)?.children.map((node) => node.entry.id)).toEqual([id4]);
  });

  it('branch moves the leaf, throws "Entry <id> not found" for an unknown id, and new appends hang from it', () => {
    const session = SessionManager.inMemory();
    const id1 = session.appendMessage(userMsg('1'));
    session.appendMessage(assistantMsg('2'));
    expect(() => session.branch('nonexistent')).toThrow('Entry nonexistent not found');
    session.branch(id1);
    expect(session.getLeafId()).toBe(id1);
    const id3 = session.appendMessage(userMsg('3'));
    expect(session.getEntry(id3)?.parentId).toBe(id1);
  });

  it('branchWithSummary inserts a branch summary under the branch point, names the leaf it left (pi 1.6) and makes it the leaf', () => {
    const session = SessionManager.inMemory();
    const id1 = session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    const summaryId = session.branchWithSummary(id1, 'Summary of abandoned work');
    expect(session.getLeafId()).toBe(summaryId);
    expect(session.getEntry(summaryId)).toMatchObject({
      type: 'branch_summary',
      parentId: id1,
      fromId: id2,
      summary: 'Summary of abandoned work',
    });
    expect(session.branchSummaryOrigin(session.getEntry(summaryId)!)).toEqual({
      meaning: 'left-leaf',
      id: id2,
    });
    expect(() => session.branchWithSummary('nonexistent', 'x')).toThrow('Entry nonexistent not found');
  });

  it('getLeafEntry is undefined for an empty session and the last entry otherwise; getEntry returns content', () => {
    const session = SessionManager.inMemory();
    expect(session.getLeafEntry()).toBeUndefined();
    const id1 = session.appendMessage(userMsg('first'));
    const id2 = session.appendMessage(assistantMsg('second'));
    expect(session.getLeafEntry()?.id).toBe(id2);
    expect(session.getEntry('nonexistent')).toBeUndefined();
    expect((session.getEntry(id1) as { message: UserMessage }).message.content).toBe('first');
    expect(textOf((session.getEntry(id2) as { message: AssistantMessage }).message)).toBe('second');
  });

  it('createBranchedSession throws for an unknown entry', () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMsg('1'));
    expect(() => session.createBranchedSession('nonexistent')).toThrow('Entry nonexistent not found');
  });

  it('createBranchedSession in memory returns undefined and keeps only the path', () => {
    const session = SessionManager.inMemory();
    const id1 = session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    const id3 = session.appendMessage(userMsg('3'));
    session.appendMessage(assistantMsg('4'));
    session.branch(id3);
    session.appendMessage(assistantMsg('5'));
    const before = session.getSessionId();
    expect(session.createBranchedSession(id2)).toBeUndefined();
    expect(ids(session.getEntries())).toEqual([id1, id2]);
    expect(session.getLeafId()).toBe(id2);
    expect(session.getSessionId()).not.toBe(before);
    expect(session.getHeader()?.parentSession).toBeUndefined();
  });

  it('createBranchedSession extracts the right path from a branched tree', () => {
    const session = SessionManager.inMemory();
    const id1 = session.appendMessage(userMsg('1'));
    const id2 = session.appendMessage(assistantMsg('2'));
    session.appendMessage(userMsg('3'));
    session.branch(id2);
    const id4 = session.appendMessage(userMsg('4'));
    const id5 = session.appendMessage(assistantMsg('5'));
    session.createBranchedSession(id5);
    expect(ids(session.getEntries())).toEqual([id1, id2, id4, id5]);
  });

  it('createBranchedSession with a provider writes the new file at once, with one header and no duplicate ids', () => {
    const provider = new MemoryStorageProvider('dir');
    const original = new MemoryStorage('', 'dir/original.jsonl');
    const session = SessionManager.inMemory('/w', { storage: original, storageProvider: provider });
    const id1 = session.appendMessage(userMsg('1'));
    session.appendMessage(assistantMsg('2'));
    session.appendMessage(userMsg('3'));
    session.appendMessage(assistantMsg('4'));
    const originalText = original.read();

    const path = session.createBranchedSession(id1);
    const created = provider.created[0] as MemoryStorage;
    expect(path).toBe(created.path);
    expect(session.getSessionFile()).toBe(path);
    expect(created.writes.map((write) => write.kind)).toEqual(['rewrite']);
    const header = storedLines(created)[0] as unknown as SessionHeader;
    expect(header).toMatchObject({ type: 'session', version: 3, id: session.getSessionId(), cwd: '/w' });
    expect(header.parentSession).toBe('dir/original.jsonl');
    expect(original.read()).toBe(originalText);

    session.appendCustomEntry('preset-state', { x: 1 });
    session.appendMessage(assistantMsg('after'));
    const written = storedLines(created);
    expect(written.filter((value) => value.type === 'session')).toHaveLength(1);
    const writtenIds = written.slice(1).map((value) => value.id);
    expect(new Set(writtenIds).size).toBe(writtenIds.length);
    expect(writtenIds).toEqual(ids(session.getEntries()));
  });
});

describe('labels (docs/reference-tests.md#labels)', () => {
  it('sets and gets labels; the label entry has the returned id, targetId and label', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    expect(session.getLabel(msgId)).toBeUndefined();
    const labelId = session.appendLabelChange(msgId, 'checkpoint');
    expect(session.getLabel(msgId)).toBe('checkpoint');
    expect(session.getEntry(labelId)).toMatchObject({
      type: 'label',
      id: labelId,
      targetId: msgId,
      label: 'checkpoint',
    });
  });

  it('clears labels with undefined (no label key) or an empty string (written as "", like the reference)', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    session.appendLabelChange(msgId, 'checkpoint');
    const clearId = session.appendLabelChange(msgId, undefined);
    expect(session.getLabel(msgId)).toBeUndefined();
    expect(session.getEntry(clearId)).not.toHaveProperty('label');
    session.appendLabelChange(msgId, 'again');
    const emptyId = session.appendLabelChange(msgId, '');
    expect(session.getLabel(msgId)).toBeUndefined();
    expect(JSON.parse(JSON.stringify(session.getEntry(emptyId)))).toHaveProperty('label', '');
  });

  it('resolves the last label set', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    session.appendLabelChange(msgId, 'first');
    session.appendLabelChange(msgId, 'second');
    session.appendLabelChange(msgId, 'third');
    expect(session.getLabel(msgId)).toBe('third');
  });

  it('includes labels in tree nodes', () => {
    const session = SessionManager.inMemory();
    const msg1 = session.appendMessage(userMsg('hello'));
    const msg2 = session.appendMessage(assistantMsg('hi'));
    session.appendLabelChange(msg1, 'start');
    session.appendLabelChange(msg2, 'response');
    const [root] = session.getTree();
    expect(root?.entry.id).toBe(msg1);
    expect(root?.label).toBe('start');
    expect(root?.children[0]?.entry.id).toBe(msg2);
    expect(root?.children[0]?.label).toBe('response');
  });

  it('preserves labels in createBranchedSession as two freshly written label entries', () => {
    const session = SessionManager.inMemory();
    const msg1 = session.appendMessage(userMsg('hello'));
    const msg2 = session.appendMessage(assistantMsg('hi'));
    session.appendLabelChange(msg1, 'important');
    session.appendLabelChange(msg2, 'also-important');
    const oldLabelIds = ids(session.getEntries().filter((entry) => entry.type === 'label'));
    session.createBranchedSession(msg2);
    expect(session.getLabel(msg1)).toBe('important');
    expect(session.getLabel(msg2)).toBe('also-important');
    const labels = session.getEntries().filter((entry) => entry.type === 'label');
    expect(labels).toHaveLength(2);
    expect(ids(labels).some((id) => oldLabelIds.includes(id))).toBe(false);
  });

  it('does not preserve labels of entries off the branched path', () => {
    const session = SessionManager.inMemory();
    const msg1 = session.appendMessage(userMsg('1'));
    const msg2 = session.appendMessage(assistantMsg('2'));
    const msg3 = session.appendMessage(userMsg('3'));
    session.appendLabelChange(msg1, 'first');
    session.appendLabelChange(msg2, 'second');
    session.appendLabelChange(msg3, 'third');
    session.createBranchedSession(msg2);
    expect(session.getLabel(msg1)).toBe('first');
    expect(session.getLabel(msg2)).toBe('second');
    expect(session.getLabel(msg3)).toBeUndefined();
  });

  it('keeps labels out of buildSessionContext', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    session.appendLabelChange(msgId, 'checkpoint');
    const { messages } = session.buildSessionContext();
    expect(messages.map((message) => message.role)).toEqual(['user']);
  });

  it('throws when labelling a non-existent entry, and writes nothing', () => {
    const storage = new MemoryStorage();
    const session = SessionManager.inMemory('/w', { storage });
    session.appendMessage(userMsg('hello'));
    const before = storage.read();
    expect(() => session.appendLabelChange('non-existent', 'x')).toThrow('Entry non-existent not found');
    expect(storage.read()).toBe(before);
  });
});

describe('createBranchedSession details (docs/tree-and-context.md#branched-session)', () => {
  it('chains the fresh label entries after the last kept entry, keeps when each label was set, and ends the leaf on the last', () => {
    const session = SessionManager.inMemory();
    const msg1 = session.appendMessage(userMsg('1'));
    const msg2 = session.appendMessage(assistantMsg('2'));
    const label1 = session.appendLabelChange(msg1, 'one');
    const msg3 = session.appendMessage(userMsg('3'));
    session.appendLabelChange(msg3, 'three');
    const setAt = session.getEntry(label1)?.timestamp;
    session.createBranchedSession(msg3);

    const entries = session.getEntries();
    // The label entry on the path is dropped; msg3 hangs from msg2, its nearest kept ancestor
    // (the reference would leave it pointing at the dropped label, an orphan root).
    expect(ids(entries.slice(0, 3))).toEqual([msg1, msg2, msg3]);
    expect(entries[2]?.parentId).toBe(msg2);
    const [first, second] = entries.slice(3);
    expect(first).toMatchObject({
      type: 'label',
      parentId: msg3,
      targetId: msg1,
      label: 'one',
      timestamp: setAt,
    });
    expect(second).toMatchObject({ type: 'label', parentId: first?.id, targetId: msg3, label: 'three' });
    expect(session.getLeafId()).toBe(second?.id);
  });

  it('re-parents past dropped labels, so the branched file has one root and the whole context (unlike the reference)', () => {
    const session = SessionManager.inMemory();
    const msg1 = session.appendMessage(userMsg('first'));
    const msg2 = session.appendMessage(assistantMsg('second'));
    const label = session.appendLabelChange(msg2, 'turning point');
    const msg3 = session.appendMessage(userMsg('third'));
    const msg4 = session.appendMessage(assistantMsg('fourth'));
    const original = session.getEntry(msg3);
    session.createBranchedSession(msg4);

    expect(session.getTree().map((node) => node.entry.id)).toEqual([msg1]);
    expect(session.getEntry(msg3)?.parentId).toBe(msg2);
    expect(session.getEntries().some((entry) => entry.id === label)).toBe(false);
    expect(session.getLabel(msg2)).toBe('turning point');
    expect(session.buildSessionContext().messages).toHaveLength(4);
    // The source entry object is not mutated.
    expect(original?.parentId).toBe(label);
    const reloaded = SessionManager.fromJsonl(session.toJsonl());
    expect(reloaded.issues).toEqual([]);
  });

  it('without a provider detaches the session from its file, which stays untouched', () => {
    const storage = new MemoryStorage('', 'original.jsonl');
    const session = SessionManager.inMemory('/w', { storage });
    const msg1 = session.appendMessage(userMsg('1'));
    const before = storage.read();
    expect(session.createBranchedSession(msg1)).toBeUndefined();
    expect(session.getSessionFile()).toBeUndefined();
    session.appendMessage(userMsg('more'));
    expect(storage.read()).toBe(before);
  });
});

describe('newSession and forkSession (docs/tree-and-context.md#branched-session, docs/reference-tests.md#custom-session-id)', () => {
  it('uses a custom session id in the id and the header', () => {
    const session = SessionManager.inMemory();
    session.newSession({ id: 'my-custom-id' });
    expect(session.getSessionId()).toBe('my-custom-id');
    session.newSession({ id: 'header-test-id' });
    expect(session.getHeader()?.id).toBe('header-test-id');
  });

  it('generates a random id without one, also when only parentSession is given', () => {
    const session = SessionManager.inMemory();
    session.newSession();
    const first = session.getSessionId();
    session.newSession({ parentSession: 'parent.jsonl' });
    expect(first.length).toBeGreaterThan(0);
    expect(session.getSessionId().length).toBeGreaterThan(0);
    expect(session.getSessionId()).not.toBe(first);
    expect(session.getHeader()?.parentSession).toBe('parent.jsonl');
  });

  it('clears entries, labels and the leaf; a header without a parent has no parentSession key', () => {
    const session = SessionManager.inMemory('/w');
    const msg = session.appendMessage(userMsg('1'));
    session.appendLabelChange(msg, 'x');
    expect(session.newSession()).toBeUndefined();
    expect(session.getEntries()).toEqual([]);
    expect(session.getLabel(msg)).toBeUndefined();
    expect(session.getLeafId()).toBeNull();
    expect(session.getHeader()).not.toHaveProperty('parentSession');
    expect(session.getHeader()).toMatchObject({ type: 'session', version: 3, cwd: '/w' });
  });

  it('with a provider creates the new file with its header line at once and returns its path', () => {
    const provider = new MemoryStorageProvider();
    const session = SessionManager.inMemory('/w', { storageProvider: provider });
    const path = session.newSession({ parentSession: 'previous.jsonl' });
    const created = provider.created[0] as MemoryStorage;
    expect(path).toBe(created.path);
    expect(storedLines(created)).toEqual([session.getHeader()]);
    session.appendMessage(userMsg('1'));
    expect(storedLines(created).map((value) => value.type)).toEqual(['session', 'message']);
  });

  it('forkSession copies every entry verbatim with the same ids and leaf into a new file', () => {
    const provider = new MemoryStorageProvider();
    const original = new MemoryStorage('', 'here.jsonl');
    const session = SessionManager.inMemory('/w', { storage: original, storageProvider: provider });
    const id1 = session.appendMessage(userMsg('1'));
    session.appendMessage(assistantMsg('2'));
    session.branch(id1);
    session.appendMessage(userMsg('3'));
    session.branch(id1);
    const entriesBefore = session.getEntries();
    const originalText = original.read();

    const path = session.forkSession();
    const created = provider.get(path as string) as MemoryStorage;
    expect(session.getHeader()?.parentSession).toBe('here.jsonl');
    expect(storedLines(created).slice(1)).toEqual(JSON.parse(JSON.stringify(entriesBefore)));
    expect(session.getEntries()).toEqual(entriesBefore);
    expect(session.getLeafId()).toBe(id1);
    expect(original.read()).toBe(originalText);
  });
});

describe('save entry (docs/reference-tests.md#save-entry)', () => {
  it('keeps a custom entry in the tree but out of the context', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('hello'));
    const customId = session.appendCustomEntry('my_data', { foo: 'bar' });
    const msg2Id = session.appendMessage(assistantMsg('hi'));
    const entries = session.getEntries();
    expect(entries).toHaveLength(3);
    expect(entries[1]).toMatchObject({
      type: 'custom',
      id: customId,
      parentId: msgId,
      customType: 'my_data',
      data: { foo: 'bar' },
    });
    expect(ids(session.getBranch())).toEqual([msgId, customId, msg2Id]);
    expect(session.buildSessionContext().messages).toHaveLength(2);
  });
});

describe('acceptance checks (docs/reference-tests.md#extra-checks)', () => {
  it('getTree sorts siblings by timestamp when appended out of order and makes self-parents and orphans roots', () => {
    const text = [
      HEADER_V3,
      msgLine('root', null, 'r', '2026-01-01T00:00:00.000Z'),
      msgLine('later', 'root', 'l', '2026-01-01T00:00:05.000Z'),
      msgLine('earlier', 'root', 'e', '2026-01-01T00:00:02.000Z'),
      msgLine('self', 'self', 's'),
      msgLine('orphan', 'missing', 'o'),
    ].join('\n');
    const session = SessionManager.fromJsonl(`${text}\n`);
    const roots = session.getTree();
    expect(roots.map((node) => node.entry.id)).toEqual(['root', 'self', 'orphan']);
    expect(roots[0]?.children.map((node) => node.entry.id)).toEqual(['earlier', 'later']);
  });

  it('branchWithSummary(null, "s") appends a root with parentId null, and fromId "root" when the leaf was null', () => {
    const session = SessionManager.inMemory();
    const first = session.appendMessage(userMsg('1'));
    session.resetLeaf();
    const summaryId = session.branchWithSummary(null, 's');
    expect(session.getEntry(summaryId)).toMatchObject({
      type: 'branch_summary',
      parentId: null,
      fromId: 'root',
      summary: 's',
    });
    expect(session.getLeafId()).toBe(summaryId);
    expect(session.getTree().map((node) => node.entry.id)).toContain(summaryId);
    session.branch(first);
    expect(session.getEntry(session.branchWithSummary(null, 't'))).toMatchObject({
      parentId: null,
      fromId: first,
    });
  });

  it('appendLabelChange moves the leaf onto the label entry', () => {
    const session = SessionManager.inMemory();
    const msgId = session.appendMessage(userMsg('1'));
    const labelId = session.appendLabelChange(msgId, 'here');
    expect(session.getLeafId()).toBe(labelId);
    expect(session.getEntry(labelId)?.parentId).toBe(msgId);
  });
});

describe('loading files (docs/reference-tests.md#file-operations, restated)', () => {
  it('loads an empty file as a session without entries or issues, with a header to write first', () => {
    const session = SessionManager.fromJsonl('');
    expect(session.getEntries()).toEqual([]);
    expect(session.issues).toEqual([]);
    expect(session.getLeafId()).toBeNull();
    expect(session.getHeader()).toMatchObject({ type: 'session', version: 3 });
  });

  it('reports a missing header instead of discarding a file whose only line is an entry', () => {
    const session = SessionManager.fromJsonl('{"type":"message","id":"1"}\n');
    expect(session.getHeader()).toBeNull();
    expect(ids(session.getEntries())).toEqual(['1']);
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual([
      '1:missing-header',
      '1:orphan',
    ]);
  });

  it('reports a file that is not JSON instead of silently returning nothing', () => {
    const session = SessionManager.fromJsonl('not json\n');
    expect(session.getEntries()).toEqual([]);
    expect(session.getHeader()).toBeNull();
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual(['1:invalid-json']);
  });

  it('loads a valid header and one message', () => {
    const session = SessionManager.fromJsonl(`${HEADER_V3}\n${msgLine('m1', null, 'hi')}\n`);
    expect(session.getHeader()?.id).toBe('sess-1');
    expect(ids(session.getEntries())).toEqual(['m1']);
    expect(session.issues).toEqual([]);
  });

  it('skips an unparsable line between entries and reports it with its line number', () => {
    const session = SessionManager.fromJsonl(`${HEADER_V3}\nnot valid json\n${msgLine('m1', null, 'hi')}\n`);
    expect(ids(session.getEntries())).toEqual(['m1']);
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual(['2:invalid-json']);
  });

  it('counts its issues as its issue list holds them, as lines arrive', () => {
    const session = SessionManager.fromJsonl(
      `${HEADER_V3}\nnot valid json\n${msgLine('m1', null, 'hi')}\n${msgLine('m1', null, 'again')}\n`,
    );
    session.ingest(`${msgLine('o', 'later', 'orphan')}\n{"type":"message","id":"cut"`);
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual([
      '2:invalid-json',
      '4:duplicate-id',
      '5:orphan',
      '6:truncated-line',
    ]);
    expect(session.issueCount).toBe(4);
    session.ingest(`,"parentId":null}\n${msgLine('later', null, 'the parent')}\n`);
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual([
      '2:invalid-json',
      '4:duplicate-id',
    ]);
    expect(session.issueCount).toBe(2);
  });

  it('writes the header before the first entry of an empty file, exactly once, and reloads with the same id', () => {
    const storage = new MemoryStorage('', 'empty.jsonl');
    const session = SessionManager.fromStorage(storage);
    expect(session.getSessionFile()).toBe('empty.jsonl');
    session.appendMessage(userMsg('1'));
    session.appendMessage(assistantMsg('2'));
    const written = storedLines(storage);
    expect(written.map((value) => value.type)).toEqual(['session', 'message', 'message']);
    expect(written[0]?.id).toBe(session.getSessionId());
    const reloaded = SessionManager.fromStorage(storage);
    expect(reloaded.getSessionId()).toBe(session.getSessionId());
    expect(reloaded.getHeader()?.type).toBe('session');
    expect(reloaded.issues).toEqual([]);
  });

  it('refuses to write to a file without a valid header instead of truncating it', () => {
    const content = '{"type":"message","id":"1","parentId":null,"timestamp":"t"}\n';
    const storage = new MemoryStorage(content);
    const session = SessionManager.fromStorage(storage);
    expect(() => session.appendMessage(userMsg('x'))).toThrow(SessionWriteError);
    expect(storage.read()).toBe(content);
    expect(session.getEntries()).toHaveLength(1);
  });
});

describe('getHeaderLine', () => {
  it('is the header line in the file, and undefined while a provisional header is not written yet', () => {
    expect(SessionManager.fromJsonl(`garbage\n${HEADER_V3}\n`).getHeaderLine()).toBe(2);
    expect(SessionManager.inMemory().getHeaderLine()).toBe(1);
    const storage = new MemoryStorage('\n');
    const session = SessionManager.fromStorage(storage);
    expect(session.getHeaderLine()).toBeUndefined();
    session.appendMessage(userMsg('1'));
    expect(session.getHeaderLine()).toBe(2);
    expect(storage.read().split('\n')[1]).toBe(JSON.stringify(session.getHeader()));
  });
});

describe('migration on load (docs/reference-tests.md#migration, restated)', () => {
  const v1 = [
    '{"type":"session","id":"old","timestamp":"2025-12-01T00:00:00.000Z","cwd":"/w"}',
    '{"type":"message","timestamp":"2025-12-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
    '{"type":"message","timestamp":"2025-12-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"p","model":"m","timestamp":2}}',
    '{"type":"compaction","timestamp":"2025-12-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":5}',
  ].join('\n');

  it('gives v1 entries ids and a parent chain, stamps version 3 and asks for a rewrite', () => {
    const session = SessionManager.fromJsonl(`${v1}\n`);
    const [first, second, compaction] = session.getEntries();
    expect(session.version).toBe(1);
    expect(session.needsRewrite).toBe(true);
    expect(session.getHeader()?.version).toBe(3);
    expect(first?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(first?.parentId).toBeNull();
    expect(second?.parentId).toBe(first?.id);
    expect(compaction).toMatchObject({ parentId: second?.id, firstKeptEntryId: second?.id });
    expect(compaction).not.toHaveProperty('firstKeptEntryIndex');
    expect(session.getLeafId()).toBe(compaction?.id);
    expect(session.issues).toEqual([]);
  });

  it('resolves firstKeptEntryIndex by the physical line even when a damaged line was skipped', () => {
    const lines = v1.split('\n');
    // A garbage line after the compaction cannot shift the targets before it; one before the header
    // cannot either, because the index counts from the header's line.
    const session = SessionManager.fromJsonl(`garbage\n${lines.join('\n')}\n`);
    const [, second, compaction] = session.getEntries();
    expect(compaction).toMatchObject({ firstKeptEntryId: second?.id });
  });

  it('keeps the ids of a v2 file and only renames hookMessage', () => {
    const text = [
      '{"type":"session","version":2,"id":"s","timestamp":"t","cwd":"/"}',
      '{"type":"message","id":"abc12345","parentId":null,"timestamp":"t","message":{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}}',
      '{"type":"message","id":"def67890","parentId":"abc12345","timestamp":"t","message":{"role":"user","content":"u","timestamp":2}}',
    ].join('\n');
    const session = SessionManager.fromJsonl(`${text}\n`);
    expect(ids(session.getEntries())).toEqual(['abc12345', 'def67890']);
    expect(session.getEntry('def67890')?.parentId).toBe('abc12345');
    expect((session.getEntry('abc12345') as { message: StoredMessage }).message.role).toBe('custom');
    expect(session.version).toBe(2);
    expect(session.needsRewrite).toBe(true);
  });

  it('rewrites a migrated file once, before the first append, then appends line by line', () => {
    const storage = new MemoryStorage(`${v1}\n`, 'legacy.jsonl');
    const session = SessionManager.fromStorage(storage);
    const migratedText = session.toJsonl();
    session.appendMessage(userMsg('new'));
    session.appendMessage(assistantMsg('newer'));
    expect(storage.writes.map((write) => write.kind)).toEqual(['rewrite', 'append', 'append']);
    expect(storage.writes[0]).toEqual({ kind: 'rewrite', text: migratedText });
    expect(session.needsRewrite).toBe(false);
    expect(session.version).toBe(3);
    const reloaded = SessionManager.fromStorage(storage);
    expect(reloaded.needsRewrite).toBe(false);
    expect(reloaded.getEntries()).toEqual(JSON.parse(JSON.stringify(session.getEntries())));
    expect(reloaded.getLine(session.getLeafId() as string)).toBe(6);
    expect(session.getLine(session.getLeafId() as string)).toBe(6);
  });

  it('streams the rewrite line by line to a storage with rewriteLines: no string of the whole file', () => {
    // An omp title line before the header too: the rewrite keeps it first.
    const titled = `{"type":"title","title":"old"}\n${v1}\n`;
    const storage = new StreamedFile(titled, 'legacy.jsonl');
    const session = SessionManager.fromStorage(storage);
    const migrated = session.toJsonl();
    const added = session.appendMessage(userMsg('new'));
    expect(storage.rewritesAsOneString).toBe(0);
    // Title, header and three entries, each handed over on its own.
    expect(storage.linesConsumed).toBe(5);
    expect(storage.longestLine).toBeLessThan(utf8Bytes(migrated) / 2);
    expect(storage.read().startsWith(migrated)).toBe(true);
    expect(session.needsRewrite).toBe(false);
    expect(session.version).toBe(3);
    expect(session.getHeaderLine()).toBe(2);
    expect(session.getLine(added)).toBe(6);
    expect(session.consumedBytes).toBe(utf8Bytes(storage.read()));
    const reloaded = SessionManager.fromStorage(storage);
    expect(reloaded.needsRewrite).toBe(false);
    expect(reloaded.getEntries()).toEqual(JSON.parse(JSON.stringify(session.getEntries())));
  });

  it('a rewrite that fails half-way leaves the session as it was, and the next write rewrites it whole', () => {
    const storage = new StreamedFile(`${v1}\n`, 'legacy.jsonl');
    storage.failAfter = 2;
    const session = SessionManager.fromStorage(storage);
    const before = { entries: session.getEntries(), issues: session.issues, leaf: session.getLeafId() };
    expect(() => session.appendMessage(userMsg('lost'))).toThrow('ENOSPC: disk full');
    expect(storage.read()).toBe(`${v1}\n`);
    expect(session.needsRewrite).toBe(true);
    expect(session.version).toBe(1);
    expect({ entries: session.getEntries(), issues: session.issues, leaf: session.getLeafId() }).toEqual(
      before,
    );
    storage.failAfter = undefined;
    const added = session.appendMessage(userMsg('kept'));
    expect(session.getLine(added)).toBe(5);
    expect(session.consumedBytes).toBe(utf8Bytes(storage.read()));
    expect(SessionManager.fromStorage(storage).getEntries()).toEqual(
      JSON.parse(JSON.stringify(session.getEntries())),
    );
  });

  it('does not migrate a file of a newer version, and exposes its version', () => {
    const text = `{"type":"session","version":4,"id":"s","timestamp":"t","cwd":"/"}\n${msgLine('a', null, 'x')}\n`;
    const session = SessionManager.fromJsonl(text);
    expect(session.version).toBe(4);
    expect(session.needsRewrite).toBe(false);
    expect(session.getHeader()?.version).toBe(4);
  });
});

describe('writes as pi 1.6 writes them, or as pi 0.73 did (docs/format.md#writing)', () => {
  it('gives branch summaries pi 1.6’s fromId (the leaf left) unless told to write as 0.73, and oh-my-pi’s always', () => {
    const make = (options: InMemoryOptions) => {
      const session = SessionManager.inMemory('', options);
      const first = session.appendMessage(userMsg('1'));
      const left = session.appendMessage(assistantMsg('2'));
      return { session, first, left };
    };
    const today = make({});
    expect(today.session.getEntry(today.session.branchWithSummary(today.first, 's'))).toMatchObject({
      fromId: today.left,
    });
    const old = make({ writeAs: 'pi-0.73' });
    expect(old.session.getEntry(old.session.branchWithSummary(old.first, 's'))).toMatchObject({
      fromId: old.first,
    });
    const omp = make({ dialect: 'omp' });
    expect(omp.session.getEntry(omp.session.branchWithSummary(omp.first, 's'))).toMatchObject({
      fromId: omp.first,
    });
  });

  it('writes a branch summary’s and a compaction’s usage, a retain-none compaction naming itself, and keys in pi’s order', () => {
    const session = SessionManager.inMemory();
    const msg = session.appendMessage(userMsg('1'));
    const usage = testUsage(5, 6);
    const compaction = session.appendCompaction('s', undefined, 10, { readFiles: [] }, true, usage);
    const summary = session.branchWithSummary(msg, 'b', { readFiles: [] }, false, usage);
    expect(session.getEntry(compaction)).toMatchObject({ firstKeptEntryId: compaction, usage });
    expect(Object.keys(JSON.parse(JSON.stringify(session.getEntry(compaction))))).toEqual([
      'type',
      'id',
      'parentId',
      'timestamp',
      'summary',
      'firstKeptEntryId',
      'tokensBefore',
      'details',
      'usage',
      'fromHook',
    ]);
    expect(Object.keys(JSON.parse(JSON.stringify(session.getEntry(summary))))).toEqual([
      'type',
      'id',
      'parentId',
      'timestamp',
      'fromId',
      'summary',
      'details',
      'usage',
      'fromHook',
    ]);
  });

  it('stores the replayed system messages at a compaction, stamped with its time', () => {
    let now = Date.parse('2026-11-20T10:00:00.000Z');
    const session = SessionManager.inMemory('', { now: () => (now += 1000) });
    session.appendMessage({ role: 'system', content: 'base', sections: { a: 'A', b: 'B' }, timestamp: 7 });
    const user = session.appendMessage(userMsg('1'));
    session.appendMessage({
      role: 'system',
      content: '',
      sections: { a: null, c: 'C' },
      toolsAdded: [{ name: 'read', description: 'r', parameters: {} }],
      timestamp: 8,
    });
    const id = session.appendCompaction('sum', user, 100);
    const entry = session.getEntry(id) as Record<string, unknown>;
    expect(entry.systemMessage).toEqual({
      role: 'system',
      content: 'base',
      sections: { b: 'B', c: 'C' },
      toolsAdded: [{ name: 'read', description: 'r', parameters: {} }],
      timestamp: Date.parse(entry.timestamp as string),
    });
    // Without system messages there is none.
    const plain = SessionManager.inMemory();
    const first = plain.appendMessage(userMsg('1'));
    expect(plain.getEntry(plain.appendCompaction('s', first, 1))).not.toHaveProperty('systemMessage');
  });

  it('appends context edits as pi 1.6 does and refuses what it refuses', () => {
    const session = SessionManager.inMemory();
    const user = session.appendMessage(userMsg('question'));
    const reply = session.appendMessage(assistantMsg('answer'));
    const setting = session.appendThinkingLevelChange('high');
    const edit = session.appendContextEdit(reply, { content: 'short answer' });
    expect(session.getEntry(edit)).toMatchObject({
      type: 'context_edit',
      parentId: setting,
      targetId: reply,
      replacement: { content: [{ type: 'text', text: 'short answer' }] },
    });
    const omit = session.appendContextEdit(user, null);
    expect(session.getEntry(omit)).toMatchObject({ targetId: user, replacement: null });
    expect(session.buildSessionContext().messages).toEqual([
      {
        ...assistantMsg('answer'),
        timestamp: (session.getEntry(reply) as { message: { timestamp: number } }).message.timestamp,
        content: [{ type: 'text', text: 'short answer' }],
      },
    ]);
    expect(() => session.appendContextEdit('nope', null)).toThrow('Entry nope not found');
    expect(() => session.appendContextEdit(setting, null)).toThrow(
      `Entry ${setting} does not contribute editable model content`,
    );
    expect(() => session.appendContextEdit(user, { text: 'x' } as never)).toThrow(
      'Context edit replacement must be null or contain string/array content',
    );
    session.branch(user);
    session.appendMessage(userMsg('other branch'));
    expect(() => session.appendContextEdit(reply, null)).toThrow(
      `Entry ${reply} is not on the active branch`,
    );
    expect(session.piOne).toBe(true);
  });

  it('appends usage entries that stay out of the context, with a note only when given', () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMsg('1'));
    const usage = testUsage(100, 0);
    const entry = session.appendUsage('cache_warm', 'anthropic', 'claude-sonnet-4-5', usage);
    expect(entry).toEqual({
      type: 'usage',
      id: entry.id,
      parentId: expect.any(String),
      timestamp: expect.any(String),
      kind: 'cache_warm',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage,
    });
    expect(session.getLeafId()).toBe(entry.id);
    expect(session.appendUsage('cache_warm', 'a', 'm', usage, 'extension override').note).toBe(
      'extension override',
    );
    expect(session.appendUsage('cache_warm', 'a', 'm', usage, '')).not.toHaveProperty('note');
    expect(session.buildSessionContext().messages).toHaveLength(1);
  });

  it('makes a session name one line, as pi 1.6 does (pi 0.73 only trimmed it)', () => {
    const today = SessionManager.inMemory();
    expect(today.getEntry(today.appendSessionInfo(' a\r\nb\n\nc '))).toMatchObject({ name: 'a b c' });
    const old = SessionManager.inMemory('', { writeAs: 'pi-0.73' });
    expect(old.getEntry(old.appendSessionInfo(' a\nb '))).toMatchObject({ name: 'a\nb' });
  });

  it('re-chains a branched path around dropped labels and re-points a compaction that kept from a label, as pi 1.6', () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMsg('1'));
    const label = session.appendLabelChange(u1, 'start');
    const a1 = session.appendMessage(assistantMsg('2'));
    const compaction = session.appendCompaction('sum', label, 10);
    const u2 = session.appendMessage(userMsg('3'));
    session.createBranchedSession(u2);
    const entries = session.getEntries();
    expect(entries.map((e) => [e.id, e.parentId])).toEqual([
      [u1, null],
      [a1, u1],
      [compaction, a1],
      [u2, compaction],
      [expect.any(String), u2],
    ]);
    expect(session.getEntry(compaction)).toMatchObject({ firstKeptEntryId: a1 });
    expect(session.getLabel(u1)).toBe('start');
    expect(session.issues).toEqual([]);
  });

  it('under pi 0.73 rules leaves a compaction that kept from a label as it is', () => {
    const session = SessionManager.inMemory('', { writeAs: 'pi-0.73' });
    const u1 = session.appendMessage(userMsg('1'));
    const label = session.appendLabelChange(u1, 'start');
    session.appendMessage(assistantMsg('2'));
    const compaction = session.appendCompaction('sum', label, 10);
    session.createBranchedSession(compaction);
    expect(session.getEntry(compaction)).toMatchObject({ firstKeptEntryId: label });
  });
});

describe('appended entries', () => {
  it('writes keys in the reference order for every entry type', () => {
    const session = SessionManager.inMemory();
    const msg = session.appendMessage(userMsg('1'));
    session.appendThinkingLevelChange('low');
    session.appendModelChange('openai', 'gpt-4');
    session.appendCompaction('s', msg, 10, { readFiles: [], modifiedFiles: [] }, true);
    session.appendCustomEntry('kind', { a: 1 });
    session.appendCustomMessageEntry('kind', 'content', true, { d: 1 });
    session.appendSessionInfo('  name  ');
    session.appendLabelChange(msg, 'label');
    session.branchWithSummary(msg, 'summary', { readFiles: [] }, false);
    session.appendTtsrInjection(['rule']);
    session.appendModeChange('plan', { planFile: 'p.md' });
    session.appendContextEdit(msg, null);
    session.appendUsage('cache_warm', 'p', 'm', testUsage(), 'n');
    const keys = session
      .getEntries()
      .map((entry) => Object.keys(JSON.parse(JSON.stringify(entry))).join(','));
    expect(keys).toEqual([
      'type,id,parentId,timestamp,message',
      'type,id,parentId,timestamp,thinkingLevel',
      'type,id,parentId,timestamp,provider,modelId',
      'type,id,parentId,timestamp,summary,firstKeptEntryId,tokensBefore,details,fromHook',
      'type,customType,data,id,parentId,timestamp',
      'type,customType,content,display,details,id,parentId,timestamp',
      'type,id,parentId,timestamp,name',
      'type,id,parentId,timestamp,targetId,label',
      'type,id,parentId,timestamp,fromId,summary,details,fromHook',
      'type,id,parentId,timestamp,injectedRules',
      'type,id,parentId,timestamp,mode,data',
      'type,id,parentId,timestamp,targetId,replacement',
      'type,id,parentId,timestamp,kind,provider,model,usage,note',
    ]);
  });

  it('omits optional fields that were not given', () => {
    const session = SessionManager.inMemory();
    const msg = session.appendMessage(userMsg('1'));
    const entries = [
      session.appendCompaction('s', msg, 10),
      session.appendCustomEntry('kind'),
      session.appendCustomMessageEntry('kind', 'c', false),
      session.branchWithSummary(msg, 'summary'),
      session.appendModeChange('none'),
    ].map((id) => session.getEntry(id) as Record<string, unknown>);
    for (const entry of entries) {
      for (const key of ['details', 'fromHook', 'fromExtension', 'data'])
        expect(entry).not.toHaveProperty(key);
    }
  });

  it('names the extension flag fromHook in pi sessions and fromExtension in oh-my-pi sessions', () => {
    const pi = SessionManager.inMemory();
    const piMsg = pi.appendMessage(userMsg('1'));
    expect(pi.getEntry(pi.appendCompaction('s', piMsg, 1, undefined, true))).toMatchObject({
      fromHook: true,
    });
    expect(pi.getEntry(pi.branchWithSummary(piMsg, 's', undefined, true))).toMatchObject({ fromHook: true });
    const omp = SessionManager.inMemory('', { dialect: 'omp' });
    const ompMsg = omp.appendMessage(userMsg('1'));
    const compaction = omp.getEntry(omp.appendCompaction('s', ompMsg, 1, undefined, true));
    expect(compaction).toMatchObject({ fromExtension: true });
    expect(compaction).not.toHaveProperty('fromHook');
    expect(omp.getEntry(omp.branchWithSummary(null, 's', undefined, false))).toMatchObject({
      fromExtension: false,
    });
  });

  it('splits a single "provider/id" argument in a pi session and refuses one without a model id', () => {
    const session = SessionManager.inMemory();
    expect(session.getEntry(session.appendModelChange('anthropic/claude-x'))).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-x',
    });
    expect(() => session.appendModelChange('anthropic')).toThrow(/needs a model id/);
  });

  it('trims session_info names; the latest one names the session, and a blank one clears the name (reference 0.73.1)', () => {
    const session = SessionManager.inMemory();
    expect(session.getSessionName()).toBeUndefined();
    const id = session.appendSessionInfo('  My session  ');
    expect(session.getEntry(id)).toMatchObject({ name: 'My session' });
    session.appendSessionInfo('Renamed');
    expect(session.getSessionName()).toBe('Renamed');
    session.appendSessionInfo('   ');
    expect(session.getSessionName()).toBeUndefined();
    expect(SessionManager.fromJsonl(session.toJsonl()).getSessionName()).toBeUndefined();
  });

  it('falls back to the oh-my-pi header title, or the title slot, for the session name', () => {
    const titled = SessionManager.fromJsonl(
      '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/","title":"Header title"}\n',
    );
    expect(titled.getSessionName()).toBe('Header title');
    const slotted = SessionManager.fromJsonl(`{"type":"title","v":1,"title":"Slot title"}\n${HEADER_V3}\n`);
    expect(slotted.getSessionName()).toBe('Slot title');
    expect(slotted.issues).toEqual([]);
    expect(slotted.toJsonl()).toBe(`{"type":"title","v":1,"title":"Slot title"}\n${HEADER_V3}\n`);
  });
});

describe('dialect', () => {
  const omp = (entry: string) => SessionManager.fromJsonl(`${HEADER_V3}\n${entry}\n`).dialect;

  it('detects oh-my-pi from a header title, a model_change model, a fromExtension flag, ttsr or mode entries', () => {
    expect(SessionManager.fromJsonl(`${HEADER_V3}\n${msgLine('a', null, 'x')}\n`).dialect).toBe('pi');
    expect(
      SessionManager.fromJsonl(
        '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/","title":"T"}\n',
      ).dialect,
    ).toBe('omp');
    expect(omp('{"type":"model_change","id":"a","parentId":null,"timestamp":"t","model":"p/m"}')).toBe('omp');
    expect(
      omp('{"type":"model_change","id":"a","parentId":null,"timestamp":"t","provider":"p","modelId":"m"}'),
    ).toBe('pi');
    expect(
      omp(
        '{"type":"compaction","id":"a","parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"a","tokensBefore":1,"fromExtension":false}',
      ),
    ).toBe('omp');
    expect(
      omp(
        '{"type":"branch_summary","id":"a","parentId":null,"timestamp":"t","fromId":"root","summary":"s","fromExtension":true}',
      ),
    ).toBe('omp');
    expect(omp('{"type":"ttsr_injection","id":"a","parentId":null,"timestamp":"t","injectedRules":[]}')).toBe(
      'omp',
    );
    expect(omp('{"type":"mode_change","id":"a","parentId":null,"timestamp":"t","mode":"plan"}')).toBe('omp');
  });

  it('lets the caller fix the dialect', () => {
    const session = SessionManager.fromJsonl(`${HEADER_V3}\n`, { dialect: 'omp' });
    expect(session.dialect).toBe('omp');
    session.dialect = 'pi';
    expect(session.getEntry(session.appendModelChange('a', 'b'))).toMatchObject({
      provider: 'a',
      modelId: 'b',
    });
  });
});

describe('persistence', () => {
  it('writes the header at creation and then exactly one line per append', () => {
    const storage = new MemoryStorage('', 'new.jsonl');
    const session = SessionManager.inMemory('/w', { storage });
    const id = session.appendMessage(userMsg('1'));
    session.appendLabelChange(id, 'l');
    expect(storage.writes.map((write) => (write.kind === 'append' ? write.lines.length : 'rewrite'))).toEqual(
      ['rewrite', 1, 1],
    );
    expect(storedLines(storage)).toEqual(
      JSON.parse(JSON.stringify([session.getHeader(), ...session.getEntries()])),
    );
    expect(session.consumedBytes).toBe(new TextEncoder().encode(storage.read()).length);
    expect(storage.read()).toBe(session.toJsonl());
  });

  it('leaves the session unchanged when the storage fails to append', () => {
    const storage = new MemoryStorage();
    const session = SessionManager.inMemory('/w', { storage });
    const id = session.appendMessage(userMsg('1'));
    storage.appendLines = () => {
      throw new Error('disk full');
    };
    expect(() => session.appendMessage(userMsg('2'))).toThrow('disk full');
    expect(ids(session.getEntries())).toEqual([id]);
    expect(session.getLeafId()).toBe(id);
  });

  it('refuses to append while the file ends with an incomplete line, changing nothing', () => {
    const text = `${HEADER_V3}\n${msgLine('a', null, 'x')}\n{"type":"message","id":"b"`;
    const storage = new MemoryStorage(text);
    const session = SessionManager.fromStorage(storage);
    expect(session.pendingBytes).toBeGreaterThan(0);
    let refusal: unknown;
    try {
      session.appendMessage(userMsg('mine'));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(SessionWriteError);
    expect((refusal as SessionWriteError).reason).toBe('incomplete-last-line');
    expect(storage.read()).toBe(text);
    expect(ids(session.getEntries())).toEqual(['a']);
    expect(session.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual(['3:truncated-line']);
  });

  it('keeps unknown fields and unknown entry types through a load/save round trip', () => {
    const text = [
      '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/","futureHeaderField":{"a":[1,2]}}',
      '{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x","timestamp":1,"extra":true},"entryExtra":"kept"}',
      '{"type":"future_kind","id":"f","parentId":"a","timestamp":"t","payload":{"nested":{"deep":null}}}',
      '{"type":"message","id":"b","parentId":"f","timestamp":"t","message":{"role":"developer","content":"new role","timestamp":2}}',
    ].join('\n');
    expect(SessionManager.fromJsonl(`${text}\n`).toJsonl()).toBe(`${text}\n`);
  });
});

describe('ingest (live tail)', () => {
  it('indexes completed lines without moving the leaf and buffers a partial one', () => {
    const session = SessionManager.fromJsonl(`${HEADER_V3}\n${msgLine('a', null, 'x')}\n`);
    const first = session.ingest(`${msgLine('b', 'a', 'y')}\n{"type":"mess`);
    expect(ids(first.entries)).toEqual(['b']);
    expect(first.issues).toEqual([]);
    expect(session.getLeafId()).toBe('a');
    expect(session.pendingBytes).toBe('{"type":"mess'.length);
    const second = session.ingest(`age","id":"c","parentId":"zzz","timestamp":"t"}\n`);
    expect(ids(second.entries)).toEqual(['c']);
    expect(second.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual(['4:orphan']);
    expect(session.pendingBytes).toBe(0);
    expect(session.getLine('c')).toBe(4);
  });

  it('reports duplicates and bad lines of the ingested chunk with their lines', () => {
    const session = SessionManager.fromJsonl(`${HEADER_V3}\n${msgLine('a', null, 'x')}\n`);
    const result = session.ingest(`oops\n${msgLine('a', null, 'again')}\n`);
    expect(result.entries).toEqual([]);
    expect(result.issues.map((issue) => `${issue.line}:${issue.kind}`)).toEqual([
      '3:invalid-json',
      '4:duplicate-id',
    ]);
  });

  it('continues line numbering after its own appends', () => {
    const storage = new MemoryStorage(`${HEADER_V3}\n`);
    const session = SessionManager.fromStorage(storage);
    const mine = session.appendMessage(userMsg('mine'));
    const result = session.ingest(`${msgLine('theirs', mine, 'y')}\n`);
    expect(result.entries.map((entry) => session.getLine(entry.id))).toEqual([3]);
    expect(session.getLine(mine)).toBe(2);
  });

  it('adopts the header another writer puts into a file that was empty', () => {
    const session = SessionManager.fromJsonl('');
    const provisional = session.getSessionId();
    session.ingest(`${HEADER_V3}\n${msgLine('a', null, 'x')}\n`);
    expect(session.getSessionId()).toBe('sess-1');
    expect(session.getSessionId()).not.toBe(provisional);
    expect(ids(session.getEntries())).toEqual(['a']);
    expect(session.issues).toEqual([]);
  });

  it('drops its provisional header when another writer starts an empty file without one', () => {
    const storage = new MemoryStorage('');
    const session = SessionManager.fromStorage(storage);
    session.ingest(`${msgLine('a', null, 'x')}\n`);
    expect(session.getHeader()).toBeNull();
    expect(() => session.appendMessage(userMsg('x'))).toThrow(SessionWriteError);
  });

  it('numbers v1 lines that an old agent keeps appending, continuing the chain', () => {
    const session = SessionManager.fromJsonl(
      '{"type":"session","id":"old","timestamp":"t","cwd":"/"}\n{"type":"message","timestamp":"t","message":{"role":"user","content":"a","timestamp":1}}\n',
    );
    const [first] = session.getEntries();
    const result = session.ingest(
      '{"type":"message","timestamp":"t","message":{"role":"hookMessage","customType":"c","content":"b","display":true,"timestamp":2}}\n',
    );
    expect(result.issues).toEqual([]);
    expect(result.entries[0]?.parentId).toBe(first?.id);
    expect(result.entries[0]?.id).toMatch(/^[0-9a-f]{8}$/);
    expect((result.entries[0] as { message: StoredMessage }).message.role).toBe('custom');
  });
});

describe('ingest in arbitrary chunks equals loading at once', () => {
  afterAll(removeFixtureCopies);

  /** Everything observable except the leaf, which ingest deliberately leaves alone. */
  function observable(session: SessionManager): unknown {
    const tree: unknown[] = [];
    const stack: [SessionTreeNode, unknown[]][] = session.getTree().map((node) => [node, tree]);
    while (stack.length > 0) {
      const [node, into] = stack.pop() as [SessionTreeNode, unknown[]];
      const children: unknown[] = [];
      into.push({ id: node.entry.id, label: node.label, children });
      for (const child of node.children) stack.push([child, children]);
    }
    return {
      header: session.getHeader(),
      entries: JSON.stringify(session.getEntries()),
      lines: session.getEntries().map((entry) => session.getLine(entry.id)),
      tree,
      issues: session.issues,
      dialect: session.dialect,
      name: session.getSessionName(),
      version: session.version,
      needsRewrite: session.needsRewrite,
      consumedBytes: session.consumedBytes,
      pendingBytes: session.pendingBytes,
      lineCount: session.lineCount,
    };
  }

  function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
    const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
    const chunks: Uint8Array[] = [];
    let start = 0;
    for (const point of [...points, bytes.length]) {
      chunks.push(bytes.subarray(start, point));
      start = point;
    }
    return chunks;
  }

  function checkEquivalence(bytes: Uint8Array, runs: number): void {
    const expected = observable(SessionManager.fromJsonl(bytes));
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), fc.boolean(), (cuts, loadFirstChunk) => {
        const chunks = chunked(bytes, cuts);
        const session = SessionManager.fromJsonl(loadFirstChunk ? (chunks.shift() as Uint8Array) : '');
        for (const chunk of chunks) session.ingest(chunk);
        expect(observable(session)).toEqual(expected);
      }),
      { numRuns: runs },
    );
  }

  async function checkChunkedLoad(bytes: Uint8Array, runs: number): Promise<void> {
    const whole = SessionManager.fromJsonl(bytes);
    const expected = { observed: observable(whole), leaf: whole.getLeafId() };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (cuts) => {
        const session = await SessionManager.fromJsonlChunks(chunked(bytes, cuts));
        expect({ observed: observable(session), leaf: session.getLeafId() }).toEqual(expected);
      }),
      { numRuns: runs },
    );
  }

  const damagedText = [
    HEADER_V3,
    msgLine('a', null, 'é😀中'),
    'not json',
    '[1]',
    `${msgLine('b', 'a', 'crlf')}\r`,
    msgLine('a', null, 'duplicate'),
    msgLine('c1', 'c2', 'cycle'),
    msgLine('c2', 'c1', 'cycle'),
    '{"type":"label","id":"l","parentId":"b","timestamp":"t","targetId":"a","label":"mark"}',
    '{"type":"session","id":"extra"}',
    '{"type":"message","id":"cut',
  ].join('\n');

  it('fromJsonlChunks over any split of a damaged text equals fromJsonl, leaf included', async () => {
    await checkChunkedLoad(new TextEncoder().encode(damagedText), 200);
  });

  it('fromJsonlChunks over no bytes gives an empty session with a header in memory, like fromJsonl', async () => {
    const session = await SessionManager.fromJsonlChunks([], { cwd: '/w' });
    expect(session.getEntries()).toEqual([]);
    expect(session.getLeafId()).toBeNull();
    expect(session.getHeader()?.cwd).toBe('/w');
    expect(session.getHeaderLine()).toBeUndefined();
    expect(session.version).toBe(SessionManager.fromJsonl('').version);
  });

  it('a load of several megabytes in pieces (parsed in slices cut at newlines) equals the text parsed at once', async () => {
    // Lines of every length from a few bytes to past a slice (256 KB), damaged ones, CRLF endings,
    // multi-byte characters and an unfinished last line: every slice boundary falls somewhere else.
    const lines = [HEADER_V3];
    for (let i = 0; i < 2500; i++) {
      const id = `e${i}`;
      // A shallow tree: a deep chain would overflow the recursive comparison of the trees.
      const parent = i % 50 === 0 ? null : `e${i - (i % 50)}`;
      const text = `${'é😀 line\n'.repeat((i * 37) % 400)}${i}`;
      lines.push(i % 97 === 5 ? `${msgLine(id, parent, text)}\r` : msgLine(id, parent, text));
      if (i % 211 === 7) lines.push('not json');
      if (i === 1200) lines.push(msgLine('huge', id, 'x'.repeat(300 << 10)));
    }
    lines.push('{"type":"message","id":"cut');
    const bytes = new TextEncoder().encode(lines.join('\n'));
    expect(bytes.length).toBeGreaterThan(4 << 20);
    const batches = (announced: string[]) => (entries: readonly SessionEntry[], firstIndex: number) => {
      expect(firstIndex).toBe(announced.length);
      announced.push(...ids(entries));
    };
    const wholeIds: string[] = [];
    const whole = SessionManager.fromJsonl(lines.join('\n'), { onEntries: batches(wholeIds) });
    const expected = { observed: observable(whole), leaf: whole.getLeafId() };
    expect(whole.getEntries()).toHaveLength(2501);
    const reader = (offset: number, length: number) => bytes.subarray(offset, offset + length);
    for (const pieces of [[bytes], chunked(bytes, [1 << 20, 3 << 20, (3 << 20) + 5])]) {
      for (const retain of ['all', 'index'] as const) {
        const announced: string[] = [];
        const session = await SessionManager.fromJsonlChunks(pieces, {
          retain,
          readRange: reader,
          onEntries: batches(announced),
        });
        expect({ observed: observable(session), leaf: session.getLeafId() }).toEqual(expected);
        expect(announced).toEqual(wholeIds);
      }
    }
    const fromBytes = SessionManager.fromJsonl(bytes);
    expect({ observed: observable(fromBytes), leaf: fromBytes.getLeafId() }).toEqual(expected);
  });

  it('for a damaged text with multi-byte characters, CRLF endings and an unfinished last line', () => {
    checkEquivalence(new TextEncoder().encode(damagedText), 200);
  });

  const fixtures = [
    'seed-example.jsonl',
    'all-entry-types.jsonl',
    'malformed.jsonl',
    'legacy-v2-hookmessage.jsonl',
    'oh-my-pi-title-slot.jsonl',
  ];
  describe('over fixtures', () => {
    for (const name of fixtures) {
      it(`for the fixture ${name}`, async () => {
        const bytes = await readFixtureCopy(name);
        checkEquivalence(bytes, 60);
        await checkChunkedLoad(bytes, 30);
      });
    }
    it('for the fixture many-branches.jsonl', async () => {
      checkEquivalence(await readFixtureCopy('many-branches.jsonl'), 8);
    });
  });
});

describe('SessionManager at 200,000 entries', () => {
  const size = 200_000;

  function sessionText(parentOf: (i: number) => string | null): string {
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const lines = [HEADER_V3];
    for (let i = 0; i < size; i++) {
      lines.push(msgLine(`e${i}`, parentOf(i), `m${i}`, new Date(base + i * 1000).toISOString()));
    }
    return `${lines.join('\n')}\n`;
  }

  it('loads a linear chain and walks it for the tree, the branch, the context and a branched session', () => {
    const session = SessionManager.fromJsonl(sessionText((i) => (i === 0 ? null : `e${i - 1}`)));
    expect(session.getLeafId()).toBe(`e${size - 1}`);
    const [root] = session.getTree();
    let depth = 0;
    for (let node: SessionTreeNode | undefined = root; node; node = node.children[0]) depth++;
    expect(depth).toBe(size);
    expect(session.getBranch()).toHaveLength(size);
    expect(session.buildSessionContext().messages).toHaveLength(size);
    session.createBranchedSession(`e${size - 2}`);
    expect(session.getEntries()).toHaveLength(size - 1);
  });

  it('loads a fan-out under one root and builds its tree', () => {
    const session = SessionManager.fromJsonl(sessionText((i) => (i === 0 ? null : 'e0')));
    const [root] = session.getTree();
    expect(root?.children).toHaveLength(size - 1);
    expect(session.getChildren('e0')).toHaveLength(size - 1);
    expect(ids(session.getBranch())).toEqual(['e0', `e${size - 1}`]);
  });
});
