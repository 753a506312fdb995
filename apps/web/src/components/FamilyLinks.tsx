// The family of the open session across files, in the top bar (docs/archive-and-family.md#family-of-a-session):
// the parent it was grafted from and the files grafted on it, each a link that opens that file with
// the graft entry selected; a child's "↳" selects, here, the entry it was grafted at.
import { useEffect } from 'react';
import type { FamilyMemberItem } from '@canopy/protocol';
import { graftInChild } from '@canopy/session-core';
import { useApp, useAppStore } from '../store/context';

/** The most children named; the rest are counted. */
const SHOWN_CHILDREN = 4;

function kindLabel(member: FamilyMemberItem): string {
  return member.archived ? `${member.kind}, archived` : member.kind;
}

export function FamilyLinks() {
  const store = useAppStore();
  const sessionId = useApp((s) => s.session?.id ?? null);
  const family = useApp((s) => s.family);
  const mtime = useApp((s) => s.session?.item.mtime ?? 0);

  useEffect(() => {
    if (sessionId !== null) void store.getState().loadFamily();
  }, [store, sessionId, mtime]);

  if (!family || family.sessionId !== sessionId || family.members.length < 2) return null;
  const self = family.members.find((m) => m.id === sessionId);
  if (!self) return null;
  const parent = family.members.find((m) => m.id === self.parentId);
  const children = family.members.filter((m) => m.parentId === self.id);
  const open = (id: string, entryId: string | null) => void store.getState().openFamilyMember(id, entryId);
  const problems = self.problems.map((p) => p.message).join(' ');

  return (
    <span className="lineage" data-testid="session.family" title={problems || undefined}>
      {parent && (
        <>
          {self.kind} of{' '}
          <a
            href={`?session=${encodeURIComponent(parent.id)}`}
            data-testid="family.parent"
            title={self.graftId ? `Open ${parent.path} at the entry this file was grafted at` : parent.path}
            onClick={(e) => {
              e.preventDefault();
              open(parent.id, self.graftId);
            }}
          >
            {parent.name}
          </a>
          {problems && ' ⚠'}
        </>
      )}
      {children.length > 0 && (
        <>
          {parent ? ' · ' : ''}
          {children.slice(0, SHOWN_CHILDREN).map((child, i) => (
            <span key={child.id} data-testid="family.child">
              {i > 0 && ', '}
              {child.graftId && (
                <button
                  type="button"
                  className="ghost"
                  data-testid="family.graft"
                  title={`Select the entry ${child.name} was grafted at`}
                  onClick={() => open(self.id, child.graftId)}
                >
                  ↳
                </button>
              )}
              <a
                href={`?session=${encodeURIComponent(child.id)}`}
                title={`${child.path} (${kindLabel(child)}, ${child.entryCount} entries)`}
                onClick={(e) => {
                  e.preventDefault();
                  // A subagent's graft is the parent's task call: the child opens at its own leaf.
                  open(child.id, graftInChild(child.kind) ? child.graftId : null);
                }}
              >
                {child.name}
              </a>{' '}
              <span className="s-meta">({kindLabel(child)})</span>
            </span>
          ))}
          {children.length > SHOWN_CHILDREN && ` +${children.length - SHOWN_CHILDREN} more`}
        </>
      )}
    </span>
  );
}
