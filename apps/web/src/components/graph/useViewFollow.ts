// The moves the graph's view makes by itself: a newly opened session starts on its leaf (or the
// deep-linked entry), the view follows the leaf when it moves (if "Follow leaf" is on), and the
// selection is kept on screen when it moves.

import type { ViewTree } from '@canopy/session-core';
import { useEffect, useEffectEvent, useRef } from 'react';
import type { GraphLayout } from '../../layout/graphLayout';
import { centerOn, wholeTreeView } from '../../layout/viewport';
import type { GraphViewport } from './useGraphViewport';

/** A whole tree that fits at this scale or more opens fitted rather than centred on the leaf. */
const READABLE_FIT_SCALE = 0.75;
/** The scale a big tree opens at, centred on its leaf. */
const OPEN_SCALE = 0.9;

export function useViewFollow(
  viewport: GraphViewport,
  {
    layout,
    tree,
    leafId,
    leafNode,
    selectedId,
    selectedNode,
    followLeaf,
    revealTick,
  }: {
    layout: GraphLayout | null;
    /** The tree the layout was made from: one per loaded snapshot. */
    tree: ViewTree | null;
    leafId: string | null;
    /** The leaf's layout index, once the (deferred) layout has it. */
    leafNode: number | undefined;
    selectedId: string | null;
    selectedNode: number | undefined;
    followLeaf: boolean;
    /** Bumped by the store whenever the selection must be brought into view. */
    revealTick: number;
  },
): void {
  const { size, mapBox } = viewport;

  // Keyed on the tree object (one per loaded snapshot), not the session id: the deferred layout may
  // still be the previous session's for a render after the id changed.
  const openedFor = useRef<ViewTree | null>(null);
  const open = useEffectEvent(() => {
    if (!layout || !tree || openedFor.current === tree || size.width < 10) return;
    // The first render runs with a guessed size; wait for the measured one.
    if (!viewport.measured) return;
    openedFor.current = tree;
    const target = selectedNode ?? leafNode;
    // A tree that fits at a readable scale is shown whole; a bigger one opens on its leaf (or the
    // deep-linked entry), readable.
    const whole = wholeTreeView(layout.bounds, size.width, size.height, mapBox);
    viewport.moveTo(
      target === undefined || whole.k >= READABLE_FIT_SCALE
        ? whole
        : centerOn(layout.x[target]!, layout.y[target]!, size.width, size.height, OPEN_SCALE),
    );
  });
  useEffect(() => open(), [layout, tree, size, selectedNode, leafNode, mapBox]);

  // Follow the leaf when it moves (live appends, jumps, other tabs). The layout is deferred, so a
  // leaf that was just appended may not be in it yet: the move waits until the layout has it, and
  // then happens once.
  const leafToFollow = useRef<string | null>(null);
  useEffect(() => {
    leafToFollow.current = followLeaf ? leafId : null;
  }, [leafId, followLeaf]);
  const follow = useEffectEvent((index: number) => viewport.showLeaf(index, true));
  useEffect(() => {
    if (!followLeaf || leafToFollow.current === null || leafToFollow.current !== leafId) return;
    if (leafNode === undefined) return;
    leafToFollow.current = null;
    follow(leafNode);
  }, [leafId, followLeaf, leafNode, layout]);

  // Keep the selection on screen when it moves (keyboard, outline clicks), and only then: a layout
  // change alone does not pull the view back to it.
  const reveal = useEffectEvent(() => viewport.centerOnNode(selectedNode, true));
  useEffect(() => reveal(), [revealTick, selectedId]);
}
