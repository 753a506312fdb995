// buildSessionContext and navigation planning through SessionManager: the reference suite's
// context cases (docs/reference-tests.md: tree traversal, labels, save entry), the oh-my-pi settings, and the context figures the reference
// package reports for every shared fixture (fixtures README).
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertToLlm } from './context';
import { collectEntriesForBranchSummary, planNavigation } from './navigation';
import { SessionManager } from './session-manager';
import type { AssistantMessage, SessionEntry, UserMessage } from './types';
import { assistantMsg, userMsg } from '../test/messages';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixturesPath = resolve(repoRoot, '../shared/fixtures/sessions');
const haveFixtures = existsSync(join(fixturesPath, 'README.md'));

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

interface FixtureFigures {
  file: string;
  entries: number;
  leaf?: string;
  messages: number;
  thinking: string;
  model: { provider: string; modelId: string } | null;
}

// The reference's figures from the fixtures README (@mariozechner/pi-coding-agent 0.73.1).
const FIGURES: FixtureFigures[] = [
  {
    file: 'all-entry-types.jsonl',
    entries: 31,
    leaf: '26cbcded',
    messages: 5,
    thinking: 'high',
    model: { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
  },
  {
    file: 'branched-from-seed-example.jsonl',
    entries: 2,
    leaf: '132d1404',
    messages: 2,
    thinking: 'off',
    model: { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
  },
  {
    file: 'legacy-v1-before-compaction.jsonl',
    entries: 1002,
    messages: 446,
    thinking: 'off',
    model: { provider: 'anthropic', modelId: 'claude-opus-4-5' },
  },
  {
    file: 'legacy-v1-large-session.jsonl',
    entries: 1018,
    messages: 914,
    thinking: 'off',
    model: { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
  },
  {
    file: 'legacy-v2-hookmessage.jsonl',
    entries: 5,
    leaf: 'a0000005',
    messages: 3,
    thinking: 'off',
    model: { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
  },
  {
    file: 'many-branches.jsonl',
    entries: 2720,
    leaf: '6bdcad3c',
    messages: 165,
    thinking: 'low',
    model: { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
  },
  {
    file: 'seed-example.jsonl',
    entries: 8,
    leaf: '1890bfab',
    messages: 5,
    thinking: 'off',
    model: { provider: 'anthropic', modelId: 'claude-sonnet-4-5' },
  },
  { file: 'empty.jsonl', entries: 0, messages: 0, thinking: 'off', model: null },
];

describe.skipIf(!haveFixtures)('context figures of the shared fixtures', () => {
  let tempDir = '';
  beforeAll(() => {
    tempDir = mkdtempSync(join(tmpdir(), 'canopy-context-fixtures-'));
  });
  afterAll(() => {
    rmSync(tempDir, { recursive: true, force: true });
  });

  for (const figures of FIGURES) {
    it(`${figures.file}: ${figures.messages} context messages, thinking ${figures.thinking}`, () => {
      const copy = join(tempDir, figures.file);
      copyFileSync(join(fixturesPath, figures.file), copy);
      const session = SessionManager.fromJsonl(readFileSync(copy, 'utf8'));

      expect(session.getEntries()).toHaveLength(figures.entries);
      if (figures.leaf) expect(session.getLeafId()).toBe(figures.leaf);
      const context = session.buildSessionContext();
      expect(context.messages).toHaveLength(figures.messages);
      expect(context.thinkingLevel).toBe(figures.thinking);
      expect(context.model).toEqual(figures.model);
      expect(context.models).toEqual(
        figures.model ? { default: `${figures.model.provider}/${figures.model.modelId}` } : {},
      );
    });
  }

  it('legacy-v1-before-compaction.jsonl: 1 summary, 77 kept and 368 later messages', () => {
    const copy = join(tempDir, 'before-compaction-parts.jsonl');
    copyFileSync(join(fixturesPath, 'legacy-v1-before-compaction.jsonl'), copy);
    const session = SessionManager.fromJsonl(readFileSync(copy, 'utf8'));
    const messages = session.buildSessionContext().messages;
    expect(messages[0]?.role).toBe('compactionSummary');
    expect(messages.filter((m) => m.role === 'compactionSummary')).toHaveLength(1);

    // The latest compaction keeps from the entry of file line 551 (line 0 being the header).
    const entries = session.getEntries();
    const lastCompaction = [...entries].reverse().find((e) => e.type === 'compaction') as SessionEntry;
    const firstKeptIndex = entries.findIndex((e) => e.id === lastCompaction.firstKeptEntryId);
    expect(firstKeptIndex).toBe(550);
    expect(entries.indexOf(lastCompaction)).toBe(627);
    const contextMessagesIn = (from: number, to: number) =>
      entries.slice(from, to).filter((e) => e.type === 'message' || e.type === 'custom_message').length;
    expect(contextMessagesIn(firstKeptIndex, 627)).toBe(77);
    expect(contextMessagesIn(628, entries.length)).toBe(368);
  });
});

if (!haveFixtures) {
  describe('context figures of the shared fixtures', () => {
    it.skip(`skipped: shared session fixtures not found at ${fixturesPath}`, () => {});
  });
}
