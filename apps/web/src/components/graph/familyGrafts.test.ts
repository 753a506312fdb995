import type { FamilyMemberItem, LaneEntryItem } from '@canopy/protocol';
import { describe, expect, it } from 'vitest';
import { layoutGraph, type GraphSource } from '../../layout/graphLayout';
import {
  chipInView,
  chipsBounds,
  FAMILY_COLOURS,
  familyColourIndex,
  familyColours,
  familyGrafts,
  GRAFT_GEOMETRY as G,
  laneRows,
  laneRowsInView,
} from './familyGrafts';

function member(id: string, extra: Partial<FamilyMemberItem> = {}): FamilyMemberItem {
  return {
    id,
    name: `name of ${id}`,
    path: `${id}.jsonl`,
    kind: 'fork',
    archived: false,
    parentId: 'open',
    graftId: null,
    toolCallId: null,
    depth: 1,
    entryCount: 3,
    lastActivity: 0,
    problems: [],
    ...extra,
  };
}

/** u1 → a2 → { u3 → a4, u5 } : every entry drawn (no runs). */
function layout() {
  const children: Record<string, string[]> = { u1: ['a2'], a2: ['u3', 'u5'], u3: ['a4'] };
  const source: GraphSource = { roots: ['u1'], children: (id) => children[id] ?? [] };
  return layoutGraph(source, { minRun: 100 });
}

const entry = (id: string): LaneEntryItem => ({ id, role: 'assistant', text: `row ${id}`, error: false });

describe('family grafts in the graph', () => {
  it('puts a chip beside each child grafted in this tree, stacked at one node, none for a graft not here', () => {
    const l = layout();
    const chips = familyGrafts({
      layout: l,
      members: [
        member('open', { kind: 'root', parentId: null, depth: 0 }),
        member('f1', { graftId: 'a2' }),
        member('f2', { graftId: 'a2' }),
        member('f3', { graftId: 'elsewhere' }),
        member('g1', { parentId: 'f1', graftId: 'a2', depth: 2 }),
      ],
      openId: 'open',
      unfolded: new Set(),
      loads: {},
    });
    expect(chips.map((c) => [c.member.id, c.role])).toEqual([
      ['f1', 'child'],
      ['f2', 'child'],
    ]);
    const a2 = l.indexOfEntry.get('a2')!;
    expect(chips.every((c) => c.node === a2 && c.openAt === 'a2')).toBe(true);
    // An agent's run does not hold its graft (the parent's task call): it opens at its own leaf.
    const agent = familyGrafts({
      layout: l,
      members: [
        member('open', { kind: 'root', parentId: null }),
        member('sub', { kind: 'subagent', graftId: 'a2' }),
      ],
      openId: 'open',
      unfolded: new Set(),
      loads: {},
    });
    expect(agent.map((c) => [c.node, c.openAt])).toEqual([[a2, null]]);
    // Beside the node, the second under the first.
    expect(chips[0]!.x).toBe(l.x[a2]! + l.nodeWidth / 2 + G.offsetX);
    expect(chips[0]!.y).toBe(l.y[a2]! - l.nodeHeight / 2);
    expect(chips[1]!.y).toBe(chips[0]!.y + G.chipHeight + G.gap);
  });

  it('shows where a child came from: at its graft entry, or at the root when the parent alone holds it', () => {
    const l = layout();
    const parent = member('p', { kind: 'root', parentId: null, depth: 0 });
    const fork = familyGrafts({
      layout: l,
      members: [parent, member('open', { parentId: 'p', graftId: 'u3' })],
      openId: 'open',
      unfolded: new Set(),
      loads: {},
    });
    expect(fork.map((c) => [c.member.id, c.role, c.node, c.openAt])).toEqual([
      ['p', 'origin', l.indexOfEntry.get('u3'), 'u3'],
    ]);
    const subagent = familyGrafts({
      layout: l,
      members: [parent, member('open', { kind: 'subagent', parentId: 'p', graftId: 'call-entry' })],
      openId: 'open',
      unfolded: new Set(),
      loads: {},
    });
    expect(subagent.map((c) => [c.role, c.node, c.openAt])).toEqual([
      ['origin', l.indexOfEntry.get('u1'), 'call-entry'],
    ]);
  });

  it("unfolds a subagent's lane under its chip and moves the next chip below it", () => {
    const l = layout();
    const members = [
      member('open', { kind: 'root', parentId: null, depth: 0 }),
      member('sub', { kind: 'subagent', graftId: 'a2', toolCallId: 'call-1' }),
      member('f1', { graftId: 'a2' }),
    ];
    const folded = familyGrafts({ layout: l, members, openId: 'open', unfolded: new Set(), loads: {} });
    expect(folded[0]!.lane).toEqual([]);
    const lane = { sessionId: 'sub', entries: [entry('e1'), entry('e2')], omitted: 0, leafId: 'e2' };
    const chips = familyGrafts({
      layout: l,
      members,
      openId: 'open',
      unfolded: new Set(['sub']),
      loads: { sub: { status: 'ready', lane, asOf: 0 } },
    });
    const [sub, f1] = chips;
    expect(sub!.lane.map((r) => (r.kind === 'entry' ? r.entry.id : r.kind))).toEqual(['e1', 'e2']);
    expect(sub!.lane[0]!.y).toBe(sub!.y + G.chipHeight + G.gap);
    expect(sub!.bottom).toBe(sub!.lane[1]!.y + G.laneRowHeight);
    expect(f1!.y).toBe(sub!.bottom + G.gap);
    // A fork has no lane even when its id is in the unfolded set.
    expect(
      familyGrafts({ layout: l, members, openId: 'open', unfolded: new Set(['f1']), loads: {} })[1]!.lane,
    ).toEqual([]);
  });

  it('says "… N more" between the first and last entries, and shows loading and errors in place', () => {
    const lane = { sessionId: 's', entries: ['a', 'b', 'c', 'd'].map(entry), omitted: 96, leafId: 'd' };
    const rows = laneRows({ status: 'ready', lane, asOf: 0 }, 0);
    expect(
      rows.map((r) => (r.kind === 'entry' ? r.entry.id : r.kind === 'omitted' ? `+${r.count}` : r.text)),
    ).toEqual(['a', 'b', '+96', 'c', 'd']);
    expect(rows.map((r) => r.y)).toEqual([0, 1, 2, 3, 4].map((i) => i * G.laneRowHeight));
    expect(laneRows({ status: 'loading' }, 0)).toEqual([
      { kind: 'status', y: 0, text: 'Loading the run…', error: false },
    ]);
    expect(laneRows({ status: 'error', message: 'gone' }, 5)).toEqual([
      { kind: 'status', y: 5, text: 'gone', error: true },
    ]);
  });

  it('draws only what is on screen: chips off view and lane rows outside it are left out', () => {
    const l = layout();
    const many = Array.from({ length: 400 }, (_, i) => entry(`e${i}`));
    const [chip] = familyGrafts({
      layout: l,
      members: [
        member('open', { kind: 'root', parentId: null }),
        member('sub', { kind: 'subagent', graftId: 'u1' }),
      ],
      openId: 'open',
      unfolded: new Set(['sub']),
      loads: {
        sub: {
          status: 'ready',
          lane: { sessionId: 'sub', entries: many, omitted: 0, leafId: 'e399' },
          asOf: 0,
        },
      },
    });
    const near = {
      minX: chip!.x - 10,
      maxX: chip!.x + 100,
      minY: chip!.y,
      maxY: chip!.y + 10 * G.laneRowHeight,
    };
    expect(chipInView(chip!, l, near)).toBe(true);
    expect(laneRowsInView(chip!, near).length).toBeLessThanOrEqual(11);
    const far = { minX: 10_000, maxX: 11_000, minY: 0, maxY: 100 };
    expect(chipInView(chip!, l, far)).toBe(false);
  });

  it('gives each member one stable colour of the palette', () => {
    expect(familyColourIndex('abc')).toBe(familyColourIndex('abc'));
    const colours = new Set(Array.from({ length: 50 }, (_, i) => familyColourIndex(`member-${i}`)));
    expect(colours.size).toBeGreaterThan(4);
    for (const c of colours) expect(c >= 0 && c < FAMILY_COLOURS).toBe(true);
  });
});

describe('fitting the graph with its family', () => {
  it('takes the chips into the box to fit, not their lanes', () => {
    const l = layout();
    const chips = familyGrafts({
      layout: l,
      members: [member('open', { kind: 'root', parentId: null }), member('f1', { graftId: 'u5' })],
      openId: 'open',
      unfolded: new Set(),
      loads: {},
    });
    const box = chipsBounds(chips)!;
    expect(box.maxX).toBe(chips[0]!.x + G.chipWidth);
    expect(box.maxX).toBeGreaterThan(l.bounds.maxX);
    expect(chipsBounds([])).toBeNull();
  });
});

describe('family colours', () => {
  it('gives siblings different colours while there are colours left, whatever the order of the list', () => {
    const kids = Array.from({ length: 8 }, (_, i) => member(`kid-${i}`, { graftId: 'a2' }));
    const colours = familyColours([member('open', { parentId: null }), ...kids]);
    expect(new Set(kids.map((k) => colours.get(k.id))).size).toBe(8);
    const reversed = familyColours([...kids].reverse());
    for (const kid of kids) expect(reversed.get(kid.id)).toBe(colours.get(kid.id));
  });
});
