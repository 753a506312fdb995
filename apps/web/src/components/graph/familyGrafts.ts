// Where the family's files sit in the graph (docs/archive-and-family.md#in-the-page): a chip beside
// the node each child file was grafted at (several at one node stack downwards), a chip "from
// ‹parent›" when the open file is itself a child, and under a subagent's chip, once unfolded, its
// lane: the run as a column of rows, "… N more" where the server left entries out. Pure functions of
// the layout and the family, in layout coordinates, so the marks pan and zoom with the nodes.

import type { FamilyMemberItem, LaneEntryItem } from '@canopy/protocol';
import { graftInChild } from '@canopy/session-core';
import type { GraphLayout, Rect } from '../../layout/graphLayout';
import type { LaneLoad } from '../../store/slices/lanes';

/** How many family colours styles.css defines (`--family-0` …). */
export const FAMILY_COLOURS = 8;

/** Chip and lane geometry, in layout units (a node is 168 × 30, rows are 62 apart). */
export const GRAFT_GEOMETRY = {
  /** From the node's right edge to its chips. */
  offsetX: 14,
  chipWidth: 150,
  chipHeight: 20,
  /** Between two stacked chips, and between a chip and its lane. */
  gap: 4,
  laneRowHeight: 16,
  /** From the chip's left edge to the lane's column of dots. */
  laneIndent: 10,
  laneWidth: 190,
} as const;

/** A member's first choice of colour, from its id alone. */
export function familyColourIndex(memberId: string): number {
  let hash = 0;
  for (let i = 0; i < memberId.length; i++) hash = (Math.imul(hash, 31) + memberId.charCodeAt(i)) | 0;
  return Math.abs(hash) % FAMILY_COLOURS;
}

/**
 * Each member's colour: its first choice, unless a sibling (same parent) taken earlier in id order
 * has it, then the next free one, so the chips stacked at one node differ while there are colours
 * left. Stable while the family is: neither order of activity nor the open file changes it.
 */
export function familyColours(members: readonly FamilyMemberItem[]): ReadonlyMap<string, number> {
  const colours = new Map<string, number>();
  const siblings = new Map<string | null, FamilyMemberItem[]>();
  for (const member of members) {
    const group = siblings.get(member.parentId);
    if (group) group.push(member);
    else siblings.set(member.parentId, [member]);
  }
  for (const group of siblings.values()) {
    const used = new Set<number>();
    for (const member of [...group].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      let colour = familyColourIndex(member.id);
      for (let step = 0; step < FAMILY_COLOURS && used.has(colour); step++)
        colour = (colour + 1) % FAMILY_COLOURS;
      if (used.size >= FAMILY_COLOURS - 1) used.clear();
      else used.add(colour);
      colours.set(member.id, colour);
    }
  }
  return colours;
}

/**
 * Where a child file opens from its graft: at the graft entry when it holds it too (a fork, a
 * clone), else (an agent's run, whose graft is the parent's task call) at its own leaf.
 */
export function childOpensAt(member: FamilyMemberItem): string | null {
  return graftInChild(member.kind) ? member.graftId : null;
}

/** Files with a lane: the run of an agent the parent started with a tool call. */
export function hasLane(member: FamilyMemberItem): boolean {
  return member.kind === 'subagent' || member.kind === 'advisor';
}

/** How a file came off its graft entry, for a menu item ("Open ‹name› (forked here)"). */
export function graftedHere(member: FamilyMemberItem): string {
  if (hasLane(member)) return 'started here';
  if (member.kind === 'fork') return 'forked here';
  if (member.kind === 'clone') return 'cloned here';
  return 'grafted here';
}

export type LaneRow =
  | { kind: 'entry'; y: number; entry: LaneEntryItem }
  | { kind: 'omitted'; y: number; count: number }
  | { kind: 'status'; y: number; text: string; error: boolean };

export interface GraftChip {
  member: FamilyMemberItem;
  /** `child`: a file grafted here; `origin`: the file the open one came from. */
  role: 'child' | 'origin';
  /** The layout node the chip is joined to. */
  node: number;
  /** The entry to select when the chip opens its file (the graft entry; null for none). */
  openAt: string | null;
  colour: number;
  /** The chip's box, in layout coordinates. */
  x: number;
  y: number;
  /** The unfolded lane's rows under the chip (empty when folded or without a lane). */
  lane: LaneRow[];
  /** The stack's extent below this chip and its lane (for hit and visibility checks). */
  bottom: number;
}

export interface FamilyGraftsInput {
  layout: GraphLayout;
  members: readonly FamilyMemberItem[];
  openId: string;
  unfolded: ReadonlySet<string>;
  loads: Readonly<Record<string, LaneLoad>>;
}

/** The rows of a lane: its entries with "… N more" in the middle, or its state while not there. */
export function laneRows(load: LaneLoad | undefined, top: number): LaneRow[] {
  const step = GRAFT_GEOMETRY.laneRowHeight;
  if (!load || load.status === 'loading')
    return [{ kind: 'status', y: top, text: 'Loading the run…', error: false }];
  if (load.status === 'error') return [{ kind: 'status', y: top, text: load.message, error: true }];
  const { entries, omitted } = load.lane;
  if (entries.length === 0) return [{ kind: 'status', y: top, text: 'No entries', error: false }];
  // The server keeps the run's first and last entries (MAX_LANE_ENTRIES): the cut is between halves.
  const cut = omitted > 0 ? Math.ceil(entries.length / 2) : entries.length;
  const rows: LaneRow[] = [];
  entries.forEach((entry, i) => {
    if (i === cut) rows.push({ kind: 'omitted', y: top + rows.length * step, count: omitted });
    rows.push({ kind: 'entry', y: top + rows.length * step, entry });
  });
  return rows;
}

/** The root node of the layout (the first one without a drawn parent). */
function rootNode(layout: GraphLayout): number | undefined {
  for (let i = 0; i < layout.nodes.length; i++) if (layout.parent[i]! < 0) return i;
  return undefined;
}

/**
 * Every chip of the open file's family, stacked per node: the children grafted at an entry of this
 * tree (a graft entry not in the tree, filtered or unknown, has no chip), and its origin.
 */
export function familyGrafts({ layout, members, openId, unfolded, loads }: FamilyGraftsInput): GraftChip[] {
  const self = members.find((m) => m.id === openId);
  if (!self) return [];
  const anchored: {
    member: FamilyMemberItem;
    role: GraftChip['role'];
    node: number;
    openAt: string | null;
  }[] = [];
  const parent = self.parentId ? members.find((m) => m.id === self.parentId) : undefined;
  if (parent) {
    // A fork shares its graft entry; a subagent's is in the parent only, so it hangs at the root.
    const at =
      (self.graftId !== null ? layout.indexOfEntry.get(self.graftId) : undefined) ?? rootNode(layout);
    if (at !== undefined) anchored.push({ member: parent, role: 'origin', node: at, openAt: self.graftId });
  }
  for (const member of members) {
    if (member.parentId !== openId || member.id === openId || member.graftId === null) continue;
    const node = layout.indexOfEntry.get(member.graftId);
    if (node !== undefined) anchored.push({ member, role: 'child', node, openAt: childOpensAt(member) });
  }

  const g = GRAFT_GEOMETRY;
  const colours = familyColours(members);
  const below = new Map<number, number>();
  return anchored.map(({ member, role, node, openAt }) => {
    const y = below.get(node) ?? layout.y[node]! - layout.nodeHeight / 2;
    const x = layout.x[node]! + layout.nodeWidth / 2 + g.offsetX;
    const open = role === 'child' && hasLane(member) && unfolded.has(member.id);
    const lane = open ? laneRows(loads[member.id], y + g.chipHeight + g.gap) : [];
    const bottom = lane.length > 0 ? lane[lane.length - 1]!.y + g.laneRowHeight : y + g.chipHeight;
    below.set(node, bottom + g.gap);
    return { member, role, node, openAt, colour: colours.get(member.id) ?? 0, x, y, lane, bottom };
  });
}

/** True when the chip or its lane reaches into `view`. */
export function chipInView(chip: GraftChip, layout: GraphLayout, view: Rect): boolean {
  const left = layout.x[chip.node]! + layout.nodeWidth / 2;
  const right =
    chip.x + Math.max(GRAFT_GEOMETRY.chipWidth, chip.lane.length > 0 ? GRAFT_GEOMETRY.laneWidth : 0);
  return left <= view.maxX && right >= view.minX && chip.y <= view.maxY && chip.bottom >= view.minY;
}

/** The box of a chip and its unfolded lane, in layout coordinates (what unfolding brings into view). */
export function chipStackBox(chip: GraftChip): Rect {
  const width = Math.max(GRAFT_GEOMETRY.chipWidth, chip.lane.length > 0 ? GRAFT_GEOMETRY.laneWidth : 0);
  return { minX: chip.x, minY: chip.y, maxX: chip.x + width, maxY: chip.bottom };
}

/** The lane rows of a chip inside `view` (a run of 400 draws only what is on screen). */
export function laneRowsInView(chip: GraftChip, view: Rect): LaneRow[] {
  return chip.lane.filter((row) => row.y + GRAFT_GEOMETRY.laneRowHeight >= view.minY && row.y <= view.maxY);
}

/** The box the chips take (their lanes left out: a long run would shrink the whole tree to fit it). */
export function chipsBounds(chips: readonly GraftChip[]): Rect | null {
  if (chips.length === 0) return null;
  const box = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (const chip of chips) {
    box.minX = Math.min(box.minX, chip.x);
    box.minY = Math.min(box.minY, chip.y);
    box.maxX = Math.max(box.maxX, chip.x + GRAFT_GEOMETRY.chipWidth);
    box.maxY = Math.max(box.maxY, chip.y + GRAFT_GEOMETRY.chipHeight);
  }
  return box;
}
