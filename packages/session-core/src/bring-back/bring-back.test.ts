// The bring-back (docs/bring-back.md): the excerpt of a selection, the entry written, read back by
// pi 1.6 (its own parser and buildSessionContext, by file) and as oh-my-pi reads it, and its undo.
import { describe, expect, it } from 'vitest';
import { buildSessionContext, convertToLlm } from '../context';
import { SessionManager } from '../session-manager';
import type { AssistantMessage, SessionEntry } from '../types';
import { assistantMsg, userMsg } from '../../test/messages';
import { OmpSessionBuilder } from '../../test/omp-builder';
import * as pi16 from '../../test/pi16';
import {
  appendBringBack,
  bringBackProvenance,
  bringBackUndoState,
  BRING_BACK_CUSTOM_TYPE,
  undoBringBack,
  UNDO_OMP_REASON,
  UNDO_PI_073_REASON,
} from './entry';
import { bringBackExcerpt, BRING_BACK_PREAMBLE } from './excerpt';

let clock = Date.parse('2026-01-01T00:00:00.000Z');
const now = () => (clock += 1000);

function toolTurn(callId: string, path: string): AssistantMessage {
  return assistantMsg('', {
    content: [
      { type: 'thinking', thinking: 'SECRET-THOUGHT', thinkingSignature: 'sig' },
      { type: 'text', text: `Reading ${path}` },
      { type: 'toolCall', id: callId, name: 'read', arguments: { path } },
    ],
    stopReason: 'toolUse',
    thinkingLevel: 'medium',
  } as Partial<AssistantMessage>);
}

function toolResult(callId: string, text: string) {
  return {
    role: 'toolResult' as const,
    toolCallId: callId,
    toolName: 'read',
    content: [{ type: 'text' as const, text }],
    isError: false,
    timestamp: now(),
  };
}

/**
 * Two approaches from one question: branch A (abandoned) read a file and found the fix; branch B
 * is where the user continues (the leaf). Written by session-core as pi 1.6 writes.
 */
function twoBranches() {
  const sm = SessionManager.inMemory('/w', { now });
  const question = sm.appendMessage(userMsg('Why does the build fail?'));
  const a1 = sm.appendMessage(userMsg('Try approach A: look at the config'));
  const a2 = sm.appendMessage(toolTurn('call-1', 'vite.config.ts'));
  const a3 = sm.appendMessage(toolResult('call-1', 'export default { base: "/app" }'));
  const a4 = sm.appendMessage(assistantMsg('The fix: set base to "./".'));
  const a5 = sm.appendMessage({
    role: 'user',
    content: [
      { type: 'text', text: 'Here is the screenshot' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ],
    timestamp: now(),
  });
  sm.branch(question);
  const b1 = sm.appendMessage(userMsg('Try approach B: reinstall'));
  const b2 = sm.appendMessage(assistantMsg('Reinstalled; still failing.'));
  return { sm, question, a: [a1, a2, a3, a4, a5], b: [b1, b2] };
}

describe('the excerpt of a selection', () => {
  it('keeps a tool call with its result: selecting the result brings the call, and the reverse', () => {
    const { sm, a } = twoBranches();
    const fromResult = bringBackExcerpt(sm, [a[2]!]);
    expect(fromResult.entryIds).toEqual([a[1], a[2]]);
    expect(fromResult.addedCalls).toBe(1);
    expect(fromResult.text).toContain('[Tool call]: read(path="vite.config.ts")');
    expect(fromResult.text).toContain('[Tool result of read]: export default { base: "/app" }');
    const fromCall = bringBackExcerpt(sm, [a[1]!]);
    expect(fromCall.entryIds).toEqual([a[1], a[2]]);
    expect(fromCall.addedResults).toBe(1);
    // The result follows its call.
    expect(fromCall.text.indexOf('[Tool call]')).toBeLessThan(fromCall.text.indexOf('[Tool result'));
  });

  it('leaves thinking out and keeps the text around it', () => {
    const { sm, a } = twoBranches();
    const excerpt = bringBackExcerpt(sm, [a[1]!]);
    expect(excerpt.text).not.toContain('SECRET-THOUGHT');
    expect(excerpt.text).not.toContain('sig');
    expect(excerpt.text).toContain('[Assistant]: Reading vite.config.ts');
  });

  it('marks where each branch starts and where unselected entries lie, in words', () => {
    const { sm, a, b } = twoBranches();
    const excerpt = bringBackExcerpt(sm, [a[0]!, a[3]!, b[1]!]);
    expect(excerpt.branches).toBe(2);
    expect(excerpt.gaps).toBe(1);
    const text = excerpt.text;
    expect(text.startsWith(BRING_BACK_PREAMBLE)).toBe(true);
    expect(text).toContain('[Selection: branch 1 of 2 of the conversation]');
    expect(text).toContain('[Selection: 2 unselected entries lie here, between the entries above and below]');
    expect(text).toContain('[Selection: branch 2 of 2; it does not continue from the entries above');
    // Reading order: branch A's entries, then branch B's.
    expect(text.indexOf('approach A')).toBeLessThan(text.indexOf('The fix'));
    expect(text.indexOf('The fix')).toBeLessThan(text.indexOf('Reinstalled'));
  });

  it('names an image with its type and entry instead of copying it', () => {
    const { sm, a } = twoBranches();
    const excerpt = bringBackExcerpt(sm, [a[4]!]);
    expect(excerpt.text).toContain(
      `[User]: Here is the screenshot\n[Image (image/png) in entry ${a[4]}: not copied]`,
    );
    expect(excerpt.text).not.toContain('AAAA');
  });

  it('over the budget, leaves the oldest out first, never splits a call from its result, and says so', () => {
    const { sm, a } = twoBranches();
    const all = bringBackExcerpt(sm, a);
    expect(all.leftOut).toBe(0);
    expect(all.notice).toBeUndefined();
    // Room for the newest entries but not for all of them.
    const budget = all.tokens - 20;
    const cut = bringBackExcerpt(sm, a, { tokenBudget: budget });
    expect(cut.tokens).toBeLessThanOrEqual(budget);
    expect(cut.leftOut).toBeGreaterThan(0);
    expect(cut.entryIds.at(-1)).toBe(a[4]);
    expect(cut.entryIds).not.toContain(a[0]);
    // A call and its result are kept or left out together.
    expect(cut.entryIds.includes(a[1]!)).toBe(cut.entryIds.includes(a[2]!));
    expect(cut.text).toContain(
      `[Bring-back: the ${cut.leftOut} oldest ${cut.leftOut === 1 ? 'entry was' : 'entries were'} left out to stay within ${budget} tokens]`,
    );
    // One token short of the whole: the newest answer stays, the pair before it goes whole.
    const three = [a[1]!, a[2]!, a[3]!];
    const tight = bringBackExcerpt(sm, three, { tokenBudget: bringBackExcerpt(sm, three).tokens - 1 });
    expect(tight.entryIds).toEqual([a[3]]);
    expect(tight.leftOut).toBe(2);
  });
});

/** pi 1.6's own reading of a file: its parser, then its context at the file's last entry. */
function pi16Context(jsonl: string) {
  type PiEntries = Parameters<typeof pi16.buildSessionContext>[0];
  const entries = pi16
    .parseSessionEntries(jsonl)
    .filter((entry: { type: string }) => entry.type !== 'session') as unknown as PiEntries;
  const context = pi16.buildSessionContext(entries);
  return pi16.convertToLlm(context.messages);
}

describe('the bring-back entry', () => {
  it('is one custom_message under the leaf that pi 1.6 sends to its model as a user message with the previewed text', () => {
    const { sm, a, b } = twoBranches();
    const excerpt = bringBackExcerpt(sm, [a[1]!, a[3]!]);
    const id = appendBringBack(sm, excerpt.text, {
      sourceFile: '/w/s.jsonl',
      sourceEntryIds: excerpt.entryIds,
      form: 'excerpt',
    });
    expect(sm.getLeafId()).toBe(id);
    const entry = sm.getEntry(id) as SessionEntry;
    expect(entry).toMatchObject({
      type: 'custom_message',
      parentId: b[1],
      customType: BRING_BACK_CUSTOM_TYPE,
      display: true,
      content: excerpt.text,
      details: { sourceFile: '/w/s.jsonl', sourceEntryIds: [a[1], a[2], a[3]], form: 'excerpt' },
    });
    expect(bringBackProvenance(entry)).toEqual({
      sourceFile: '/w/s.jsonl',
      sourceEntryIds: [a[1], a[2], a[3]],
      form: 'excerpt',
    });
    const wire = pi16Context(sm.toJsonl());
    expect(wire.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: excerpt.text }] });
    // Nothing of branch A itself is in the context: only the copy.
    expect(JSON.stringify(wire.slice(0, -1))).not.toContain('approach A');
  });

  it('is read by oh-my-pi as a user message with the previewed text', () => {
    // oh-my-pi 18.3.4 session-context.ts: a custom_message enters the context as a custom message,
    // which convertToLlm sends as a user message (restated by session-core's omp dialect, omp.test.ts).
    const builder = new OmpSessionBuilder({ title: 'Two approaches' });
    const q = builder.user('Why does the build fail?');
    const answer = builder.assistant('Set base to "./".');
    builder.user('Other approach', q);
    const sm = SessionManager.fromJsonl(builder.text());
    expect(sm.dialect).toBe('omp');
    const excerpt = bringBackExcerpt(sm, [answer]);
    appendBringBack(sm, excerpt.text, {
      sourceFile: '/w/o.jsonl',
      sourceEntryIds: excerpt.entryIds,
      form: 'excerpt',
    });
    const reread = SessionManager.fromJsonl(sm.toJsonl());
    const context = buildSessionContext(reread.getBranch(), reread.getLeafId(), undefined, {
      dialect: 'omp',
    });
    const wire = convertToLlm(context.messages, { dialect: 'omp' });
    expect(wire.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: excerpt.text }] });
    expect(excerpt.text).toContain('[Assistant]: Set base to "./".');
  });

  it('ignores entries that are not bring-backs', () => {
    const { sm, a } = twoBranches();
    expect(bringBackProvenance(sm.getEntry(a[0]!))).toBeUndefined();
    const other = sm.appendCustomMessageEntry('other.ext', 'x', true, {
      sourceFile: 'f',
      sourceEntryIds: [],
    });
    expect(bringBackProvenance(sm.getEntry(other))).toBeUndefined();
  });
});

describe('undo', () => {
  it('in a pi 1.x file appends a context_edit that pi 1.6 honours: the model no longer gets the message', () => {
    const { sm, a } = twoBranches();
    expect(sm.piOne).toBe(true);
    const id = appendBringBack(sm, 'brought text', {
      sourceFile: '/w/s.jsonl',
      sourceEntryIds: [a[3]!],
      form: 'excerpt',
    });
    expect(bringBackUndoState(sm, id)).toEqual({ possible: true });
    const before = pi16Context(sm.toJsonl());
    const editId = undoBringBack(sm, id);
    expect(sm.getEntry(editId)).toMatchObject({ type: 'context_edit', targetId: id, replacement: null });
    const after = pi16Context(sm.toJsonl());
    expect(JSON.stringify(before)).toContain('brought text');
    expect(JSON.stringify(after)).not.toContain('brought text');
    expect(after).toHaveLength(before.length - 1);
    expect(bringBackUndoState(sm, id)).toMatchObject({ possible: false, undone: true });
    expect(() => undoBringBack(sm, id)).toThrow('Undone');
  });

  it('is refused off the current branch', () => {
    const { sm, a, question } = twoBranches();
    const id = appendBringBack(sm, 'brought', {
      sourceFile: 'f',
      sourceEntryIds: [a[3]!],
      form: 'condensed',
    });
    sm.branch(question);
    expect(bringBackUndoState(sm, id)).toMatchObject({
      possible: false,
      reason: expect.stringContaining('not on the current branch'),
    });
  });

  it('is not possible in an oh-my-pi file or a file without pi 1.x entries, and says why', () => {
    const builder = new OmpSessionBuilder({ title: 't' });
    const q = builder.user('q');
    const omp = SessionManager.fromJsonl(builder.text());
    const ompId = appendBringBack(omp, 'x', { sourceFile: 'f', sourceEntryIds: [q], form: 'summary' });
    expect(bringBackUndoState(omp, ompId)).toEqual({ possible: false, reason: UNDO_OMP_REASON });
    expect(() => undoBringBack(omp, ompId)).toThrow(UNDO_OMP_REASON);

    const old = SessionManager.inMemory('/w', { now, writeAs: 'pi-0.73' });
    const u = old.appendMessage(userMsg('q'));
    const oldId = appendBringBack(old, 'x', { sourceFile: 'f', sourceEntryIds: [u], form: 'excerpt' });
    expect(old.piOne).toBe(false);
    expect(bringBackUndoState(old, oldId)).toEqual({ possible: false, reason: UNDO_PI_073_REASON });
  });
});
