// The graph's DOM layer: when zoomed in far enough to read, each node on screen is a card
// (clickable, with test ids) placed over the canvas by the view's transform.

import { memo, type CSSProperties, type PointerEvent as ReactPointerEvent } from 'react';
import { KIND_COLOR_VAR } from '../../lib/entryKind';
import { isMatch } from './nodeFacts';
import type { GraphScene } from './paintGraph';

/** Memoised: the graph view renders again on every selection move, mostly with the same scene. */
export const GraphCards = memo(function GraphCards({
  scene,
  highlight,
  wantsRectSelect,
  onActivate,
}: {
  /** The same scene the canvas paints; the cards show its visible nodes. */
  scene: GraphScene;
  /** Whether a search is on, so that matched text is marked. */
  highlight: boolean;
  /** Whether a pointer-down with these modifiers starts a selection rectangle. */
  wantsRectSelect: (e: ReactPointerEvent) => boolean;
  /** A click (jump false) or double-click (jump true) on the card of this node. */
  onActivate: (index: number, jump: boolean) => void;
}) {
  const { layout, transform, visible, selectedNode, matches, coverageAt, factsAt } = scene;
  return visible.map((index) => {
    const facts = factsAt(index);
    const node = layout.nodes[index]!;
    const isRun = node.kind === 'run';
    const sx = (layout.x[index]! - layout.nodeWidth / 2) * transform.k + transform.tx;
    const sy = (layout.y[index]! - layout.nodeHeight / 2) * transform.k + transform.ty;
    const matched = isMatch(facts, matches);
    return (
      <div
        key={isRun ? `run-${node.id}` : node.id}
        className="gnode"
        data-testid={isRun ? 'graph.run' : 'graph.node'}
        data-entry-id={isRun ? undefined : node.id}
        data-kind={isRun ? 'run' : facts.kind}
        data-active={facts.active || undefined}
        data-leaf={facts.leaf || undefined}
        data-archived={facts.archived || undefined}
        data-selected={index === selectedNode || undefined}
        data-match={matched || undefined}
        data-multi={((coverage) => (coverage === 'all' ? true : (coverage ?? undefined)))(coverageAt(index))}
        data-folded={facts.folded || undefined}
        title={isRun ? `${facts.ids.length} entries in a straight line: click to expand` : facts.text}
        style={
          {
            left: 0,
            top: 0,
            width: layout.nodeWidth,
            height: layout.nodeHeight,
            transform: `translate(${sx}px, ${sy}px) scale(${transform.k})`,
            '--kind': facts.error ? 'var(--error)' : KIND_COLOR_VAR[facts.kind],
          } as CSSProperties
        }
        onPointerDown={(e) => {
          // A Shift-drag (or the Select tool) starting on a card draws the selection rectangle.
          if (!wantsRectSelect(e)) e.stopPropagation();
        }}
        onClick={(e) => {
          e.stopPropagation();
          onActivate(index, false);
        }}
        onDoubleClick={(e) => {
          e.stopPropagation();
          if (!isRun) onActivate(index, true);
        }}
      >
        {facts.folded > 0 && (
          <span
            className="gfold"
            data-testid="graph.fold"
            title={`Folded: ${facts.folded} entries hidden below (Ctrl+→ unfolds)`}
          >
            ⊞{facts.folded}
          </span>
        )}
        {facts.label && <span className="glabel">[{facts.label}]</span>}
        <span className="gtext">{highlight && matched ? <mark>{facts.text}</mark> : facts.text}</span>
        {facts.leaf && (
          <span
            className="gleaf"
            data-testid="graph.leaf"
            title="The current leaf: the next message continues here"
          >
            leaf
          </span>
        )}
        {facts.leafBelow && (
          <span
            className="gleaf hidden-leaf"
            data-testid="graph.leaf-hidden"
            title="The current leaf is hidden (by the filter or a fold) just below this node"
          >
            leaf ↓
          </span>
        )}
      </div>
    );
  });
});
