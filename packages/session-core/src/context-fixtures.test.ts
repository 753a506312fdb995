// buildSessionContext and navigation planning through SessionManager: the reference suite's
// context cases (docs/reference-tests.md: tree traversal, labels, save entry), the oh-my-pi settings, and, for every fixture, the context the
// pi that wrote it builds from the same file (0.73.1, or 1.6.0 for its own files, at every entry).
import { SessionManager as ReferenceSessionManager } from '@mariozechner/pi-coding-agent';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertToLlm } from './context';
import { collectEntriesForBranchSummary, planNavigation } from './navigation';
import { SessionManager } from './session-manager';
import type { AssistantMessage, SessionEntry, UserMessage } from './types';
import { FIXTURE_NAMES, fixtureFacts, fixturesDir, PI16_WRITTEN } from '../test/fixtures';
import * as pi16 from '../test/pi16';
import { SessionManager as Pi16SessionManager } from '../test/pi16';
import { assistantMsg, userMsg } from '../test/messages';

describe('buildSessionContext through SessionManager', () => {
  it('returns messages from the current branch only', () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMsg('msg1'));
    const id2 = session.appendMessage(assistantMsg('msg2'));
    session.appendMessage(userMsg('msg3'));
    session.branch(id2);
    session.appendMessage(assistantMsg('msg4-branch'));

    const messages = session.buildSessionContext().messages;
    expect(messages).toHaveLength(3);
    expect((messages[0] as UserMessage).content).toBe('msg1');
    expect((messages[1] as AssistantMessage).content[0]).toEqual({ type: 'text', text: 'msg2' });
    expect((messages[2] as AssistantMessage).content[0]).toEqual({ type: 'text', text: 'msg4-branch' });
  });

  it('does not include labels', () => {
    const session = SessionManager.inMemory();
    const id = session.appendMessage(userMsg('hello'));
    session.appendLabelChange(id, 'checkpoint');
    const messages = session.buildSessionContext().messages;
    expect(messages).toHaveLength(1);
    expect(messages[0]?.role).toBe('user');
  });

  it('is empty after resetLeaf and starts over from the new root', () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMsg('old'));
    session.resetLeaf();
    expect(session.buildSessionContext().messages).toEqual([]);
    session.appendMessage(userMsg('new root'));
    expect(session.buildSessionContext().messages.map((m) => (m as UserMessage).content)).toEqual([
      'new root',
    ]);
  });

  it('shows a branch summary and a custom message the way the model receives them', () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMsg('start'));
    session.appendMessage(assistantMsg('abandoned'));
    session.branchWithSummary(u1, 'tried something');
    session.appendCustomMessageEntry('note', 'injected', true);

    const wire = convertToLlm(session.buildSessionContext().messages);
    expect(wire.map((m) => m.role)).toEqual(['user', 'user', 'user']);
    expect(wire[1]?.content).toEqual([
      {
        type: 'text',
        text: 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\ntried something</summary>',
      },
    ]);
    expect(wire[2]?.content).toEqual([{ type: 'text', text: 'injected' }]);
  });

  it('tracks oh-my-pi model roles, ttsr rules and mode', () => {
    const session = SessionManager.inMemory('', { dialect: 'omp' });
    session.appendMessage(userMsg('q'));
    session.appendModelChange('openai/gpt-4');
    session.appendModelChange('google/gemini-flash', 'smol');
    session.appendTtsrInjection(['rule-a', 'rule-b']);
    session.appendTtsrInjection(['rule-b', 'rule-c']);
    session.appendModeChange('plan', { planFile: 'PLAN.md' });

    const context = session.buildSessionContext();
    expect(context.models).toEqual({ default: 'openai/gpt-4', smol: 'google/gemini-flash' });
    expect(context.model).toEqual({ provider: 'openai', modelId: 'gpt-4' });
    expect(context.injectedTtsrRules).toEqual(['rule-a', 'rule-b', 'rule-c']);
    expect(context.mode).toBe('plan');
    expect(context.modeData).toEqual({ planFile: 'PLAN.md' });
  });
});

describe('navigation planning through SessionManager', () => {
  it('plans a move to a nested user message: abandoned entries, parent as new leaf, editor text', () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMsg('one'));
    const a1 = session.appendMessage(assistantMsg('r1'));
    const u2 = session.appendMessage(userMsg('Message two'));
    const a2 = session.appendMessage(assistantMsg('r2'));

    const target = session.getEntry(u2) as SessionEntry;
    const { entries, commonAncestorId } = collectEntriesForBranchSummary(session, session.getLeafId(), u2);
    expect(commonAncestorId).toBe(u2);
    expect(entries.map((e) => e.id)).toEqual([a2]);
    expect(planNavigation(target)).toEqual({ newLeafId: a1, editorText: 'Message two' });

    const root = planNavigation(session.getEntry(u1) as SessionEntry);
    expect(root).toEqual({ newLeafId: null, editorText: 'one' });
  });
});

// Every fixture's context as the reference package (0.73.1) builds it, computed side by side on a copy
// of the same file: message count, thinking level and model.
describe('context figures of the fixtures, as the reference reports them', () => {
  let tempDir = '';
  beforeAll(() => {
    tempDir = mkdtempSync(join(tmpdir(), 'canopy-context-fixtures-'));
  });
  afterAll(() => {
    rmSync(tempDir, { recursive: true, force: true });
  });

  // Not the damaged file (the reference reads it worse, on purpose), the oh-my-pi one (pi cannot read
  // a title slot line before the header), nor those pi 1.6 wrote (compared with pi 1.6 below).
  const readable = FIXTURE_NAMES.filter(
    (name) =>
      name !== 'malformed.jsonl' && name !== 'oh-my-pi-title-slot.jsonl' && !PI16_WRITTEN.includes(name),
  );
  for (const file of readable) {
    it(`${file}: the reference's context messages, thinking level and model`, () => {
      const copy = join(tempDir, file);
      copyFileSync(join(fixturesDir(), file), copy);
      const text = readFileSync(copy, 'utf8');
      const session = SessionManager.fromJsonl(text);
      // The reference migrates a legacy copy in place; it reads its own copy.
      const referenceCopy = join(tempDir, `reference-${file}`);
      copyFileSync(copy, referenceCopy);
      const expected = ReferenceSessionManager.open(referenceCopy, tempDir).buildSessionContext();

      const context = session.buildSessionContext();
      expect(context.messages).toHaveLength(expected.messages.length);
      expect(context.thinkingLevel).toBe(expected.thinkingLevel);
      expect(context.model).toEqual(expected.model);
      expect(context.models).toEqual(
        expected.model ? { default: `${expected.model.provider}/${expected.model.modelId}` } : {},
      );
      if (file !== 'empty.jsonl') expect(context.messages.length).toBeGreaterThan(0);
    });
  }

  for (const file of PI16_WRITTEN) {
    it(`${file}: pi 1.6.0's context, deep-equal, with the leaf at every entry`, () => {
      const copy = join(tempDir, `pi16-${file}`);
      copyFileSync(join(fixturesDir(), file), copy);
      const session = SessionManager.fromJsonl(readFileSync(copy, 'utf8'));
      const pi = Pi16SessionManager.open(copy, tempDir);
      for (const entry of session.getEntries()) {
        session.branch(entry.id);
        pi.branch(entry.id);
        const mine = session.buildSessionContext();
        const theirs = pi.buildSessionContext();
        expect(mine.messages, entry.id).toEqual(theirs.messages);
        expect(mine.thinkingLevel).toBe(theirs.thinkingLevel);
        expect(mine.model).toEqual(theirs.model);
        expect(convertToLlm(mine.messages)).toEqual(
          pi16.convertToLlm(theirs.messages as Parameters<typeof pi16.convertToLlm>[0]),
        );
      }
    });
  }

  it('legacy-v1-before-compaction.jsonl: the summary of the latest compaction, the messages it keeps, and all later ones', () => {
    const copy = join(tempDir, 'before-compaction-parts.jsonl');
    copyFileSync(join(fixturesDir(), 'legacy-v1-before-compaction.jsonl'), copy);
    const session = SessionManager.fromJsonl(readFileSync(copy, 'utf8'));
    const messages = session.buildSessionContext().messages;
    expect(messages[0]?.role).toBe('compactionSummary');
    expect(messages.filter((m) => m.role === 'compactionSummary')).toHaveLength(1);

    // The generator put the compactions on these file lines (0 = the header) and had each keep from
    // the given line; entry index = line index − 1.
    const facts = fixtureFacts('legacy-v1-before-compaction.jsonl');
    const compactionLines = facts.compactionLineIndexes as number[];
    const keptLines = facts.firstKeptEntryIndexes as number[];
    const lastCompactionIndex = (compactionLines.at(-1) as number) - 1;
    const entries = session.getEntries();
    const lastCompaction = [...entries].reverse().find((e) => e.type === 'compaction') as SessionEntry;
    const firstKeptIndex = entries.findIndex((e) => e.id === lastCompaction.firstKeptEntryId);
    expect(firstKeptIndex).toBe((keptLines.at(-1) as number) - 1);
    expect(entries.indexOf(lastCompaction)).toBe(lastCompactionIndex);
    // The context is 1 summary + the messages from the kept one up to the compaction + every later one.
    const messagesIn = (from: number, to: number) =>
      entries.slice(from, to).filter((e) => e.type === 'message').length;
    const kept = messagesIn(firstKeptIndex, lastCompactionIndex);
    const later = messagesIn(lastCompactionIndex + 1, entries.length);
    expect(kept).toBeGreaterThan(0);
    expect(messages).toHaveLength(1 + kept + later);
  });
});
