// The family's marks over the graph (docs/archive-and-family.md#in-the-page): each file grafted on
// the open one as a chip beside its graft node, joined to it by a dashed edge in the file's colour;
// "from ‹parent›" when the open file is a child; a subagent's lane unfolded under its chip. DOM
// buttons, so each is hit-testable, focusable and titled; only the ones on screen are drawn, and a
// family is at most 500 files, so a 200,000-node graph pays for a few dozen elements at most.

import { memo, type CSSProperties } from 'react';
import type { GraphLayout, Rect } from '../../layout/graphLayout';
import type { Transform } from '../../layout/viewport';
import type { LaneLoad } from '../../store/slices/lanes';
import {
  chipInView,
  GRAFT_GEOMETRY as G,
  hasLane,
  laneRowsInView,
  type GraftChip,
  type LaneRow,
} from './familyGrafts';

/** The longest name a chip shows; the title has it whole. */
const CHIP_NAME_CHARS = 22;

function truncate(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

function kindLabel(chip: GraftChip): string {
  const { member } = chip;
  return member.archived ? `${member.kind}, archived` : member.kind;
}

function chipText(chip: GraftChip): string {
  const name = truncate(chip.member.name, CHIP_NAME_CHARS);
  return chip.role === 'origin' ? `from ${name}` : name;
}

/**
 * The chip's mark: "↰" back to the parent, "⎇" a fork, and for an agent's run two stacked boxes
 * drawn in CSS (the "⧉" glyph is missing from common Linux fonts).
 */
export function ChipIcon({ chip }: { chip: Pick<GraftChip, 'role' | 'member'> }) {
  if (chip.role === 'origin') return <span className="gchip-icon">↰</span>;
  if (hasLane(chip.member)) return <span className="gchip-icon gchip-agent" aria-label="agent run" />;
  return <span className="gchip-icon">⎇</span>;
}

function chipTitle(chip: GraftChip): string {
  const { member } = chip;
  if (chip.role === 'origin')
    return `This file came from ${member.name} (${member.path}): open it at the entry this file was grafted at`;
  const where = chip.openAt === null ? 'open it' : 'open it at this entry';
  return `${member.name} (${kindLabel(chip)}, ${member.entryCount} entries, ${member.path}): ${where}`;
}

export interface GraphGraftsProps {
  layout: GraphLayout;
  transform: Transform;
  view: Rect;
  width: number;
  height: number;
  chips: readonly GraftChip[];
  unfolded: ReadonlySet<string>;
  loads: Readonly<Record<string, LaneLoad>>;
  /** Opens a family member, with `entryId` selected. */
  onOpen: (memberId: string, entryId: string | null) => void;
  onToggleLane: (memberId: string) => void;
}

/** The screen box of a layout box, scaled like the cards (GraphCards). */
function placed(x: number, y: number, width: number, height: number, t: Transform): CSSProperties {
  return {
    left: 0,
    top: 0,
    width,
    height,
    transform: `translate(${x * t.k + t.tx}px, ${y * t.k + t.ty}px) scale(${t.k})`,
  };
}

const colourOf = (chip: GraftChip) => ({ '--member': `var(--family-${chip.colour})` }) as CSSProperties;

export const GraphGrafts = memo(function GraphGrafts({
  layout,
  transform: t,
  view,
  width,
  height,
  chips,
  unfolded,
  loads,
  onOpen,
  onToggleLane,
}: GraphGraftsProps) {
  const shown = chips.filter((chip) => chipInView(chip, layout, view));
  if (shown.length === 0) return null;
  const sx = (x: number) => x * t.k + t.tx;
  const sy = (y: number) => y * t.k + t.ty;
  return (
    <>
      <svg className="graft-edges" width={width} height={height} aria-hidden="true">
        {shown.map((chip) => {
          const fromX = sx(layout.x[chip.node]! + layout.nodeWidth / 2);
          const fromY = sy(layout.y[chip.node]!);
          const toY = sy(chip.y + G.chipHeight / 2);
          const laneX = sx(chip.x + G.laneIndent);
          const last = chip.lane[chip.lane.length - 1];
          return (
            <g key={`${chip.role}-${chip.member.id}`} style={colourOf(chip)}>
              <path
                d={`M${fromX},${fromY} C${fromX + 8 * t.k},${fromY} ${sx(chip.x) - 8 * t.k},${toY} ${sx(chip.x)},${toY}`}
              />
              {last && (
                <path
                  d={`M${laneX},${sy(chip.y + G.chipHeight)} L${laneX},${sy(last.y + G.laneRowHeight / 2)}`}
                />
              )}
            </g>
          );
        })}
      </svg>
      {shown.map((chip) => {
        const { member } = chip;
        const lane = chip.role === 'child' && hasLane(member);
        const open = unfolded.has(member.id);
        const load = loads[member.id];
        return (
          <div key={`${chip.role}-${member.id}`} style={colourOf(chip)}>
            <div
              className="gchip"
              data-testid="graph.graft"
              data-member-id={member.id}
              data-role={chip.role}
              data-kind={member.kind}
              style={placed(chip.x, chip.y, G.chipWidth, G.chipHeight, t)}
              onPointerDown={(e) => e.stopPropagation()}
            >
              <button
                type="button"
                className="gchip-open"
                data-testid="graph.graft-open"
                title={chipTitle(chip)}
                onClick={(e) => {
                  e.stopPropagation();
                  onOpen(member.id, chip.openAt);
                }}
              >
                <ChipIcon chip={chip} />
                {chipText(chip)}
              </button>
              {lane && (
                <button
                  type="button"
                  className="gchip-fold"
                  data-testid="graph.lane-toggle"
                  aria-expanded={open}
                  title={
                    open ? `Fold ${member.name}'s run` : `Unfold ${member.name}'s run under this tool call`
                  }
                  onClick={(e) => {
                    e.stopPropagation();
                    onToggleLane(member.id);
                  }}
                >
                  {open ? '▾' : '▸'}
                </button>
              )}
            </div>
            {chip.lane.length > 0 && (
              <div
                className="glane"
                data-testid="graph.lane"
                data-member-id={member.id}
                data-status={load?.status ?? 'loading'}
                aria-label={`${member.name}'s run`}
              >
                {laneRowsInView(chip, view).map((row) => (
                  <LaneRowView
                    key={row.kind === 'entry' ? row.entry.id : `${row.kind}-${row.y}`}
                    row={row}
                    chip={chip}
                    t={t}
                    onOpen={onOpen}
                  />
                ))}
              </div>
            )}
          </div>
        );
      })}
    </>
  );
});

function LaneRowView({
  row,
  chip,
  t,
  onOpen,
}: {
  row: LaneRow;
  chip: GraftChip;
  t: Transform;
  onOpen: GraphGraftsProps['onOpen'];
}) {
  const style = placed(chip.x, row.y, G.laneWidth, G.laneRowHeight, t);
  if (row.kind === 'status')
    return (
      <div
        className="glane-row glane-status"
        data-testid="graph.lane-status"
        data-error={row.error || undefined}
        role={row.error ? 'alert' : 'status'}
        style={style}
      >
        {row.text}
      </div>
    );
  if (row.kind === 'omitted')
    return (
      <div
        className="glane-row glane-more"
        data-testid="graph.lane-more"
        title={`${row.count} entries of the run are not drawn here: open the file to see them`}
        style={style}
      >
        … {row.count} more
      </div>
    );
  const { entry } = row;
  return (
    <button
      type="button"
      className="glane-row glane-dot"
      data-testid="graph.lane-dot"
      data-entry-id={entry.id}
      data-role={entry.role}
      data-error={entry.error || undefined}
      title={`${entry.text}\n(open ${chip.member.name} at this entry)`}
      style={style}
      onPointerDown={(e) => e.stopPropagation()}
      onClick={(e) => {
        e.stopPropagation();
        onOpen(chip.member.id, entry.id);
      }}
    >
      <span className="glane-mark" aria-hidden="true" />
      <span className="glane-text">{entry.text}</span>
    </button>
  );
}
