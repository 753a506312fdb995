import type { FamilyMemberItem, FamilyResponse } from '@canopy/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from '../appStore';
import { fakeApi } from '../testing';

function member(id: string, fields: Partial<FamilyMemberItem> = {}): FamilyMemberItem {
  return {
    id,
    name: id,
    path: `${id}.jsonl`,
    kind: id === 's1' ? 'root' : 'fork',
    archived: false,
    parentId: id === 's1' ? null : 's1',
    graftId: id === 's1' ? null : 'a2',
    toolCallId: null,
    depth: id === 's1' ? 0 : 1,
    entryCount: 3,
    lastActivity: 1,
    problems: [],
    ...fields,
  };
}

describe('family slice', () => {
  it('keeps the family object when asked again and nothing changed, and takes a changed one', async () => {
    const answers: FamilyResponse[] = [
      { members: [member('s1'), member('f1')] },
      { members: [member('s1'), member('f1')] },
      { members: [member('s1'), member('f1', { entryCount: 9 })] },
    ];
    const family = vi.fn(() => Promise.resolve(answers.shift()!));
    const store = createAppStore({ api: fakeApi({ family }), storage: null });
    await store.getState().openSession('s1');
    await store.getState().loadFamily();
    const first = store.getState().family;
    expect(first?.members.map((m) => m.id)).toEqual(['s1', 'f1']);
    await store.getState().loadFamily();
    expect(store.getState().family).toBe(first);
    await store.getState().loadFamily();
    expect(store.getState().family).not.toBe(first);
    expect(store.getState().family?.members[1]?.entryCount).toBe(9);
  });
});
