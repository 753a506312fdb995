// oh-my-pi 18.3.4 files, read as oh-my-pi reads them. Each expectation follows a module of the
// package's own source (@oh-my-pi/pi-coding-agent 18.3.4, src/session/…, and the tree selector of
// @oh-my-pi/pi-tui): those modules import Bun-only packages and do not load under Node, so the
// behaviour is restated here and the module is named in each describe block.

import { describe, expect, it } from 'vitest';
import { buildSessionContext, convertToLlm, estimateContextTokens } from './context';
import { SessionManager } from './session-manager';
import { passesFilter } from './tree-view/filter';
import { toViewEntries, type ViewEntry } from './tree-view/view-entry';
import { OmpSessionBuilder, TITLE_SLOT_BYTES, titleSlotLine } from '../test/omp-builder';

function load(builder: OmpSessionBuilder): SessionManager {
  return SessionManager.fromJsonl(builder.text());
}

function views(sm: SessionManager): Map<string, ViewEntry> {
  const list = toViewEntries(sm.getEntries(), (id) => sm.getLabel(id), { dialect: sm.dialect });
  return new Map(list.map((view) => [view.id, view]));
}

describe('title line (session-title-slot.ts, session-loader.ts)', () => {
  it('the title line is exactly 256 bytes, newline included, for short, long and multi-byte titles', () => {
    for (const title of ['x', 'é'.repeat(300), 'a'.repeat(1000)]) {
      expect(new TextEncoder().encode(titleSlotLine(title, '2026-09-01T10:00:00.000Z', 'user')).length).toBe(
        TITLE_SLOT_BYTES,
      );
    }
  });

  it('the name is the title line, not the stale header title', () => {
    const b = new OmpSessionBuilder({ title: 'Current title', headerTitle: 'Stale header title' });
    b.user('hello');
    const sm = load(b);
    expect(sm.getSessionName()).toBe('Current title');
    expect(sm.dialect).toBe('omp');
    expect(sm.issues).toEqual([]);
  });

  it('after a rename the name is the rewritten title line and the title_change row reads [title: …]', () => {
    const b = new OmpSessionBuilder({ title: 'First' });
    b.user('hello');
    const change = b.rename('Renamed by the user');
    const sm = load(b);
    expect(sm.getSessionName()).toBe('Renamed by the user');
    const view = views(sm).get(change)!;
    expect(view.text).toBe('[title: Renamed by the user]');
    expect(view.search).toBe('title renamed by the user');
    expect(passesFilter(view, 'default', false)).toBe(false);
    expect(passesFilter(view, 'all', false)).toBe(true);
  });

  it('without a title line the latest title_change names the session, over the header title', () => {
    const b = new OmpSessionBuilder({ headerTitle: 'Old', titleLine: false });
    b.user('hello');
    b.rename('Newer');
    const text = b.text();
    expect(text.startsWith('{"type":"session"')).toBe(true);
    expect(SessionManager.fromJsonl(text).getSessionName()).toBe('Newer');
  });

  it('an empty title line means no name even when the header has a title (the slot is folded into it)', () => {
    const b = new OmpSessionBuilder({ title: '', headerTitle: 'Header' });
    b.user('hello');
    expect(load(b).getSessionName()).toBeUndefined();
  });

  it('a title cut to fit the line is shown in full from the title_change that set it', () => {
    const long = `Long ${'word '.repeat(60)}end`;
    const b = new OmpSessionBuilder({ title: 'Short' });
    b.user('hello');
    b.rename(long);
    const slot = JSON.parse(b.titleLine()) as { title: string };
    expect(slot.title.length).toBeLessThan(long.length);
    expect(load(b).getSessionName()).toBe(long.trim());
  });

  it('replaceTitleSlot (an in-place rewrite noticed while tailing) changes the name', () => {
    const b = new OmpSessionBuilder({ title: 'Before' });
    b.user('hello');
    const sm = load(b);
    sm.replaceTitleSlot({ type: 'title', title: 'After' });
    expect(sm.getSessionName()).toBe('After');
  });
});

describe('entry types and rows (session-entries.ts; pi-tui tree-selector.ts)', () => {
  function everyType(): { b: OmpSessionBuilder; ids: Record<string, string> } {
    const b = new OmpSessionBuilder({ title: 'All types' });
    const ids: Record<string, string> = {};
    ids.init = b.add('session_init', { systemPrompt: 'You are a scout.', task: 'Find it', tools: ['read'] });
    ids.model = b.modelChange('anthropic/claude-sonnet-4-5');
    ids.user = b.user('hello');
    ids.usage = b.modelUsage(ids.user, 'title');
    ids.tier = b.add('service_tier_change', { serviceTier: { openai: 'priority' } });
    ids.tierDefault = b.add('service_tier_change', { serviceTier: null });
    ids.pin = b.add('credential_pin', { provider: 'anthropic', hash: 'abc123' });
    ids.ttsr = b.add('ttsr_injection', { injectedRules: ['no-console'] });
    ids.mode = b.add('mode_change', { mode: 'plan', data: { planFile: 'PLAN.md' } });
    ids.reset = b.add('reset_boundary');
    ids.developer = b.message({ role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] });
    ids.python = b.message({
      role: 'pythonExecution',
      code: 'print(1)',
      output: '1',
      exitCode: 0,
      cancelled: false,
    });
    ids.mention = b.message({ role: 'fileMention', files: [{ path: 'a.ts', content: 'x', lineCount: 1 }] });
    ids.image = b.assistant([
      { type: 'redactedThinking', data: 'opaque' },
      { type: 'text', text: 'Here is the chart' },
      { type: 'image', data: 'blob:sha256:' + 'a'.repeat(64), mimeType: 'image/png' },
    ]);
    ids.marker = b.add('branch_summary', {
      fromId: ids.image,
      summary: '',
      details: { kind: 'discarded-entry-branch' },
    });
    return { b, ids };
  }

  it('no oh-my-pi entry type is reported as unknown', () => {
    const sm = load(everyType().b);
    expect(sm.issues).toEqual([]);
    expect(sm.dialect).toBe('omp');
  });

  it('each new type reads as oh-my-pi’s tree selector shows it', () => {
    const { b, ids } = everyType();
    const v = views(load(b));
    const text = (key: string) => v.get(ids[key]!)!.text;
    expect(text('init')).toBe('[session init]');
    expect(text('usage')).toBe('[model usage: title smol anthropic/claude-haiku-4-5]');
    expect(text('tier')).toBe('[service tier: openai:priority]');
    expect(text('tierDefault')).toBe('[service tier: (default)]');
    expect(text('pin')).toBe('[credential pin: anthropic]');
    expect(text('ttsr')).toBe('[ttsr injection]');
    expect(text('mode')).toBe('[mode: plan]');
    expect(text('reset')).toBe('[reset boundary]');
    expect(text('developer')).toBe('developer: Be brief.');
    expect(text('python')).toBe('[pythonExecution]');
    expect(text('mention')).toBe('[fileMention]');
    expect(text('image')).toBe('assistant: Here is the chart');
    expect(text('marker')).toBe('[branch summary]: (discarded-entry-branch)');
  });

  it('bookkeeping types are hidden by default and found by their search words', () => {
    const { b, ids } = everyType();
    const v = views(load(b));
    const view = (key: string) => v.get(ids[key]!)!;
    for (const key of ['init', 'usage', 'tier', 'pin', 'ttsr', 'mode', 'reset']) {
      expect(passesFilter(view(key), 'default', false), key).toBe(false);
      expect(passesFilter(view(key), 'all', false), key).toBe(true);
    }
    for (const key of ['developer', 'python', 'mention', 'image', 'marker']) {
      expect(passesFilter(view(key), 'default', false), key).toBe(true);
    }
    expect(view('usage').search).toBe('model usage title smol anthropic claude-haiku-4-5');
    expect(view('tier').search).toBe('service tier openai priority');
    expect(view('pin').search).toBe('credential pin anthropic');
    expect(view('reset').search).toBe('reset boundary');
    expect(view('init').search).toBe('session init');
    expect(view('marker').search).toBe('branch summary  discarded-entry-branch');
  });

  it('an assistant reply with an image and redacted thinking is flagged as such', () => {
    const { b, ids } = everyType();
    const view = views(load(b)).get(ids.image!)!;
    // HasImage (16) | HasThinking (32)
    expect(view.flags & 48).toBe(48);
  });

  it('on load the leaf is the last line, even a model_usage (the loader re-inserts every entry)', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    const user = b.user('hello');
    b.assistant('hi');
    const usage = b.modelUsage(user);
    expect(b.leaf).not.toBe(usage);
    expect(load(b).getLeafId()).toBe(usage);
  });
});

describe('model context, oh-my-pi dialect (session-context.ts buildSessionContext)', () => {
  it('an explicit default model_change wins over later assistant messages; pi lets the assistant win', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    b.modelChange('openai/gpt-5');
    b.user('hello');
    b.assistant('hi', { provider: 'anthropic', model: 'fallback-model' });
    const sm = load(b);
    expect(sm.buildSessionContext().models.default).toBe('openai/gpt-5');
    expect(sm.buildSessionContext().model).toEqual({ provider: 'openai', modelId: 'gpt-5' });
    const pi = buildSessionContext(sm.getEntries(), sm.getLeafId());
    expect(pi.models.default).toBe('anthropic/fallback-model');
  });

  it('a reset_boundary after the latest compaction starts the context after it', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    const u1 = b.user('one');
    b.assistant('a1');
    b.add('compaction', { summary: 'S', firstKeptEntryId: u1, tokensBefore: 100 });
    b.user('two');
    b.add('reset_boundary');
    b.user('three');
    b.assistant('a3');
    const context = load(b).buildSessionContext();
    expect(context.messages.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(context.messages)).toContain('three');
  });

  it('a compaction after the reset_boundary wins: summary, kept entries, then what follows', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    b.user('one');
    b.add('reset_boundary');
    const kept = b.user('two');
    b.assistant('a2');
    b.add('compaction', { summary: 'S', firstKeptEntryId: kept, tokensBefore: 100 });
    b.user('three');
    const roles = load(b)
      .buildSessionContext()
      .messages.map((m) => (m as { role: string }).role);
    expect(roles).toEqual(['compactionSummary', 'user', 'assistant', 'user']);
  });

  it('aborted and error turns are dropped with their tool results; empty error turns too', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    b.user('do it');
    b.assistant([b.toolCall('call-1', 'bash', { command: 'ls' })], { stopReason: 'aborted' });
    b.toolResult('call-1', 'bash', 'aborted');
    b.assistant([], { stopReason: 'error', errorMessage: 'overloaded' });
    b.user('again');
    b.assistant('done');
    const sm = load(b);
    const messages = sm.buildSessionContext().messages;
    expect(messages.map((m) => (m as { role: string }).role)).toEqual(['user', 'user', 'assistant']);
    // pi keeps all of them.
    expect(buildSessionContext(sm.getEntries(), sm.getLeafId()).messages).toHaveLength(6);
  });

  it('tool calls without a result on the path are stripped, with redacted thinking and thinking signatures', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    b.user('go');
    b.assistant(
      [
        { type: 'thinking', thinking: 'plan', thinkingSignature: 'sig' },
        { type: 'redactedThinking', data: 'enc' },
        { type: 'text', text: 'Running two' },
        b.toolCall('c1', 'read', { path: 'a' }),
        b.toolCall('c2', 'read', { path: 'b' }),
      ],
      { stopReason: 'toolUse' },
    );
    b.toolResult('c1', 'read', 'A');
    const context = load(b).buildSessionContext();
    const assistant = context.messages[1] as { content: Array<Record<string, unknown>> };
    expect(assistant.content).toEqual([
      { type: 'thinking', thinking: 'plan' },
      { type: 'text', text: 'Running two' },
      { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a' } },
    ]);
  });

  it('an assistant turn left with only dangling tool calls is dropped', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    b.user('go');
    b.assistant([b.toolCall('c1', 'read', { path: 'a' })], { stopReason: 'toolUse' });
    const context = load(b).buildSessionContext();
    expect(context.messages.map((m) => (m as { role: string }).role)).toEqual(['user']);
  });

  it('developer and pythonExecution messages reach the model (messages.ts convertToLlm); pi drops them', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    b.message({ role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] });
    b.message({ role: 'pythonExecution', code: 'print(1)', output: '1', exitCode: 1, cancelled: false });
    b.message({ role: 'fileMention', files: [{ path: 'a.ts', content: 'const a = 1;', lineCount: 1 }] });
    const sm = load(b);
    const context = sm.buildSessionContext();
    const llm = convertToLlm(context.messages, { dialect: 'omp' });
    expect(llm.map((m) => m.role)).toEqual(['developer', 'user', 'developer']);
    expect((llm[1]!.content as Array<{ text: string }>)[0]!.text).toBe(
      'Ran Python:\n```python\nprint(1)\n```\nOutput:\n```\n1\n```\n\nExecution failed with code 1',
    );
    expect((llm[2]!.content as Array<{ text: string }>)[0]!.text).toBe(
      '<file path="a.ts">\nconst a = 1;\n</file>',
    );
    expect(convertToLlm(context.messages).map((m) => m.role)).toEqual(['user']);
    expect(estimateContextTokens(context.messages, 'omp')).toBeGreaterThan(
      estimateContextTokens(context.messages),
    );
  });

  it('service_tier_change sets the context’s service tier', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    b.add('service_tier_change', { serviceTier: { openai: 'flex' } });
    b.user('x');
    expect(load(b).buildSessionContext().serviceTier).toEqual({ openai: 'flex' });
  });

  it('an empty-summary branch marker adds no message', () => {
    const b = new OmpSessionBuilder({ title: 't' });
    const u = b.user('x');
    b.add('branch_summary', { fromId: u, summary: '', details: { kind: 'discarded-entry-branch' } });
    expect(load(b).buildSessionContext().messages).toHaveLength(1);
  });
});
