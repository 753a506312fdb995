// The outline's entry point to the family (docs/archive-and-family.md#in-the-page): on the row a
// file was grafted at (a fork point, a subagent's tool call), a small chip per file that opens it
// there. The graph draws the same files as chips and lanes (graph/GraphGrafts.tsx).

import type { FamilyMemberItem } from '@canopy/protocol';
import type { CSSProperties } from 'react';
import { useMemo } from 'react';
import { useApp, useAppStore } from '../store/context';
import { childOpensAt, familyColours } from './graph/familyGrafts';
import { ChipIcon } from './graph/GraphGrafts';

/** A file grafted at an entry, with its colour (familyColours). */
export interface RowGraft {
  member: FamilyMemberItem;
  colour: number;
}

/** The open file's children by the entry each was grafted at. */
export function useGraftsByEntry(): ReadonlyMap<string, readonly RowGraft[]> {
  const openId = useApp((s) => s.session?.id ?? null);
  const family = useApp((s) => s.family);
  return useMemo(() => {
    const byEntry = new Map<string, RowGraft[]>();
    if (!family || family.sessionId !== openId) return byEntry;
    const colours = familyColours(family.members);
    for (const member of family.members) {
      if (member.parentId !== openId || member.graftId === null || member.id === openId) continue;
      const graft = { member, colour: colours.get(member.id) ?? 0 };
      const list = byEntry.get(member.graftId);
      if (list) list.push(graft);
      else byEntry.set(member.graftId, [graft]);
    }
    return byEntry;
  }, [family, openId]);
}

export function RowGrafts({ grafts }: { grafts: readonly RowGraft[] }) {
  const store = useAppStore();
  return grafts.map(({ member, colour }) => (
    <button
      key={member.id}
      type="button"
      className="row-graft"
      data-testid="tree.graft"
      data-member-id={member.id}
      data-kind={member.kind}
      title={`${member.name} (${member.kind}, ${member.entryCount} entries, ${member.path}): ${
        childOpensAt(member) === null ? 'open it' : 'open it at this entry'
      }`}
      style={{ '--member': `var(--family-${colour})` } as CSSProperties}
      onMouseDown={(e) => e.stopPropagation()}
      onClick={(e) => {
        e.stopPropagation();
        void store.getState().openFamilyMember(member.id, childOpensAt(member));
      }}
    >
      <ChipIcon chip={{ role: 'child', member }} />
      {member.name}
    </button>
  ));
}
