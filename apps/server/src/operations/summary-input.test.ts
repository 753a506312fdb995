import { MAX_SUMMARY_ENTRIES } from '@canopy/protocol';
import { SessionManager, utf8Encode } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { assistantMsg, userMsg } from '../../../../packages/session-core/test/messages';
import { bytesReader } from '../../../../packages/session-core/test/retention';
import { orderSelection, summaryInput } from './summary-input';

/**
 * A trunk of `turns` question/answer pairs with a side branch off the first answer; the file as
 * the server reads it: keeping only the index, entries read back through a counting reader.
 */
function branchedSession(turns: number) {
  const writer = SessionManager.inMemory('/w');
  const trunk: string[] = [];
  for (let turn = 0; turn < turns; turn++) {
    trunk.push(writer.appendMessage(userMsg(`question ${turn}`)));
    trunk.push(writer.appendMessage(assistantMsg(`answer ${turn}`)));
  }
  writer.branch(trunk[1]!);
  const side = [
    writer.appendMessage(userMsg('side question')),
    writer.appendMessage(assistantMsg('side answer')),
  ];
  const bytes = utf8Encode(writer.toJsonl());
  const reader = bytesReader(bytes);
  const sm = SessionManager.fromJsonl(bytes, { retain: 'index', readRange: reader });
  return { sm, reader, trunk, side };
}

describe('orderSelection', () => {
  it('orders a selection across branches depth-first, older children first, each branch oldest first', () => {
    const { sm, trunk, side } = branchedSession(3);
    const ordered = orderSelection(sm, [side[1]!, trunk[4]!, side[0]!, trunk[0]!, trunk[2]!]);
    // The trunk's second question is older than the side branch: its branch comes first.
    expect(ordered.ids).toEqual([trunk[0], trunk[2], trunk[4], side[0], side[1]]);
    expect(ordered.newestId).toBe(side[1]);
    const input = summaryInput(sm, ordered.ids, 'The selection');
    expect(input.entries[3]).toMatchObject({ type: 'message', message: { content: 'side question' } });
    expect(input).toMatchObject({ selectedCount: 5 });
    expect(input.notice).toBeUndefined();
  });

  it('reads no entry back from the file, however large the tree it walks', () => {
    const { sm, reader, side, trunk } = branchedSession(2_000);
    const picked = [...trunk.slice(3_000, 3_050), ...side];
    expect(orderSelection(sm, picked).ids).toHaveLength(picked.length);
    // Before, every entry the walk passed was read back: about 3,000 here, a whole 1 GB file at scale.
    expect(reader.reads).toBe(0);
  });

  it('refuses an empty selection and names ids the session does not have', () => {
    const { sm, trunk } = branchedSession(2);
    expect(() => orderSelection(sm, [])).toThrow('The selection is empty');
    expect(() => orderSelection(sm, [trunk[0]!, 'nope1234'])).toThrow(
      'The selection names an entry this session does not have: nope1234.',
    );
  });
});

describe('summaryInput', () => {
  it('reads back only the newest entries a summary covers, and says how many were left out', () => {
    const turns = MAX_SUMMARY_ENTRIES / 2 + 500;
    const { sm, reader, trunk } = branchedSession(turns);
    const ordered = orderSelection(sm, trunk);
    const input = summaryInput(sm, ordered.ids, 'The selection');
    expect(input.entries.map((entry) => entry.id)).toEqual(trunk.slice(trunk.length - MAX_SUMMARY_ENTRIES));
    expect(reader.reads).toBe(MAX_SUMMARY_ENTRIES);
    expect(input.selectedCount).toBe(trunk.length);
    expect(input.notice).toBe(
      `The selection has ${trunk.length.toLocaleString('en')} entries; the summary covers the newest ` +
        `${MAX_SUMMARY_ENTRIES.toLocaleString('en')} (the oldest 1,000 are left out).`,
    );
  });
});
