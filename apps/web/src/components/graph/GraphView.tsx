// The graph: node-link drawing of the (filtered) tree laid out by d3-hierarchy. This component only
// composes the parts: the layout from the store (store/derived.ts), the viewport (useGraphViewport,
// useViewFollow), the canvas layer (GraphCanvas → paintGraph), the DOM cards (GraphCards) shown
// when zoomed in far enough to read, the toolbar (GraphControls), the minimap and drag-select.

import { tokenizeQuery } from '@canopy/session-core';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { nodesInRect, type GraphLayout } from '../../layout/graphLayout';
import { isRectInView, revealRect, visibleRect } from '../../layout/viewport';
import type { AppStore } from '../../store/appStore';
import { useApp, useAppStore, useDerived } from '../../store/context';
import { leafIdOf, selectedIdOf } from '../../store/selectors';
import { useStoreValueAfterPaint } from './afterPaint';
import { GraphCanvas } from './GraphCanvas';
import { useProvenancePairs } from './useBringBackEdges';
import { GraphCards } from './GraphCards';
import { GraphControls } from './GraphControls';
import { GraphGrafts } from './GraphGrafts';
import { chipStackBox, chipsBounds, familyGrafts } from './familyGrafts';
import { unfoldedLanesOf } from '../../store/slices/lanes';
import { Minimap } from './Minimap';
import { factsOf, NO_FOLD_FACTS } from './nodeFacts';
import { selectionCoverage } from '../../layout/selectionRect';
import type { GraphScene } from './paintGraph';
import { usePalette } from './palette';
import { useGraphLayout } from './useGraphLayout';
import { useGraphPointer } from './useGraphPointer';
import { useGraphRectSelect } from './useGraphRectSelect';
import { MIN_DOM_SCALE, useGraphViewport } from './useGraphViewport';
import { useViewFollow } from './useViewFollow';

const treeViewOf = (state: AppStore) => state.treeView;

/** Above this many nodes on screen the cards stay on the canvas (DOM would be too slow). */
const MAX_DOM_NODES = 700;

export function GraphView() {
  const store = useAppStore();
  const expandedRuns = useApp((s) => s.expandedRuns);
  const followLeaf = useApp((s) => s.followLeaf);
  const revealTick = useApp((s) => s.revealTick);
  const multiSelection = useApp((s) => s.multiSelection);
  const palette = usePalette(useApp((s) => s.theme));
  const [selectTool, setSelectTool] = useState(false);
  const [minimapOpen, setMinimapOpen] = useState(true);

  // The layout of a big tree takes a moment, and repainting the canvas and the cards for a new
  // selection or search takes some too: the graph takes a new tree view state only after the
  // outline's update has been painted (afterPaint.ts), so a click, a filter change, a keystroke or
  // a live append shows in the outline first, and the graph follows a frame later.
  const treeView = useStoreValueAfterPaint(store, treeViewOf);
  // Everything the graph shows of the tree (layout, leaf, selection, search) comes from that one
  // tree view state, so a render never mixes the rows of one tree version with the tree of another.
  const tree = treeView?.tree ?? null;
  const leafId = treeView ? leafIdOf({ treeView }) : null;
  const selectedId = treeView ? selectedIdOf({ treeView }) : null;
  const query = treeView?.query ?? '';
  const searchRows = treeView?.indexById;
  const derived = useDerived();
  const rows = derived.graphRows(treeView);
  // A large tree is laid out in slices (useGraphLayout): the last layout shows meanwhile.
  const { layout, pending } = useGraphLayout(derived, tree, rows, expandedRuns);
  const selectedNode = layout && selectedId ? layout.indexOfEntry.get(selectedId) : undefined;
  const leafNode = layout && leafId ? layout.indexOfEntry.get(leafId) : undefined;

  const grafts = useFamilyGrafts(layout);
  const viewport = useGraphViewport(layout, minimapOpen, grafts.bounds);
  const { containerRef, size, transform, transformRef } = viewport;
  useRevealUnfoldedLane(grafts, viewport);
  useViewFollow(viewport, {
    layout,
    tree,
    leafId,
    leafNode,
    selectedId,
    selectedNode,
    followLeaf,
    revealTick,
  });

  // Kept while the layout is (like the rect select's `wants`): GraphCards is memoised, so the cards
  // are not rendered again for every selection, keystroke or reveal that leaves the scene as it was.
  const activate = useCallback(
    (index: number, jump: boolean) => {
      if (!layout) return;
      const node = layout.nodes[index]!;
      const actions = store.getState();
      if (node.kind === 'run') actions.toggleRun(node.id);
      else if (jump) void actions.jump(node.id);
      else actions.select(node.id, false);
    },
    [layout, store],
  );
  const rectSelect = useGraphRectSelect(store, containerRef, layout, transformRef, selectTool);
  const openMenu = useCallback(
    (index: number, x: number, y: number) => {
      const node = layout?.nodes[index];
      if (!node || node.kind === 'run') return;
      store.getState().select(node.id, false);
      store.getState().openEntryMenu(node.id, x, y);
    },
    [layout, store],
  );
  const pointer = useGraphPointer(viewport, layout, rectSelect, activate, openMenu);

  const highlight = useMemo(() => tokenizeQuery(query).length > 0, [query]);
  const matches = query.trim() && searchRows ? searchRows : null;
  const view = useMemo(() => visibleRect(transform, size.width, size.height), [transform, size]);
  const visible = useMemo(() => (layout ? nodesInRect(layout, view) : []), [layout, view]);
  const domCards = transform.k >= MIN_DOM_SCALE && visible.length <= MAX_DOM_NODES;
  const provenance = useProvenancePairs(layout);
  const scene: GraphScene | null = useMemo(() => {
    if (!layout || !tree) return null;
    const folds = treeView ?? NO_FOLD_FACTS;
    const factsAt = (index: number) => factsOf(layout, index, tree, rows, leafId, folds);
    const foldedIds = (id: string) => treeView?.foldedIds.get(id);
    const coverageAt = (index: number) => selectionCoverage(layout, index, multiSelection, foldedIds);
    return {
      layout,
      transform,
      view,
      visible,
      domCards,
      selectedNode,
      matches,
      multiSelection,
      factsAt,
      coverageAt,
      provenance,
    };
  }, [
    layout,
    tree,
    rows,
    leafId,
    treeView,
    transform,
    view,
    visible,
    domCards,
    selectedNode,
    matches,
    multiSelection,
    provenance,
  ]);

  return (
    <div className="graph-pane">
      <GraphControls
        onFit={viewport.fit}
        onZoom={viewport.zoomBy}
        onShowLeaf={() => viewport.showLeaf(leafNode, false)}
        onCenterSelected={() => viewport.centerOnNode(selectedNode, false)}
        selectTool={selectTool}
        onSelectTool={setSelectTool}
        minimapOpen={minimapOpen}
        onMinimap={setMinimapOpen}
      />
      <div
        ref={containerRef}
        className="graph-view"
        data-testid="tree.graph"
        data-node-count={layout?.nodes.length ?? 0}
        data-laying-out={pending || undefined}
        data-visible-count={visible.length}
        data-scale={transform.k.toFixed(3)}
        data-select-tool={selectTool || undefined}
        data-provenance-edges={provenance.length}
        data-grafts={grafts.chips.length}
        tabIndex={-1}
        aria-label="Session tree (graph)"
        {...pointer}
      >
        <GraphCanvas width={size.width} height={size.height} scene={scene} palette={palette} />
        <div className="graph-overlay">
          {domCards && scene && (
            <GraphCards
              scene={scene}
              highlight={highlight}
              wantsRectSelect={rectSelect.wants}
              onActivate={activate}
            />
          )}
          {layout && grafts.chips.length > 0 && (
            <GraphGrafts
              layout={layout}
              transform={transform}
              view={view}
              width={size.width}
              height={size.height}
              chips={grafts.chips}
              unfolded={grafts.unfolded}
              loads={grafts.loads}
              onOpen={grafts.onOpen}
              onToggleLane={grafts.onToggleLane}
            />
          )}
        </div>
        {pending && (
          <div className="graph-status" role="status" data-testid="graph.laying-out">
            Laying out…
          </div>
        )}
        {rectSelect.rect && (
          <div
            className="graph-select-rect"
            data-testid="graph.select-rect"
            style={{
              left: rectSelect.rect.minX,
              top: rectSelect.rect.minY,
              width: rectSelect.rect.maxX - rectSelect.rect.minX,
              height: rectSelect.rect.maxY - rectSelect.rect.minY,
            }}
          />
        )}
        {viewport.minimapBox && layout && palette && (
          <Minimap
            layout={layout}
            transform={transform}
            width={size.width}
            height={size.height}
            palette={palette}
            onCenter={viewport.centerAt}
          />
        )}
      </div>
    </div>
  );
}

/**
 * A lane just unfolded is brought into view, its start first when it is taller than the pane (it
 * grows from one "Loading the run…" row to its entries: shown again as it does, until it is in).
 * Only the lane the user unfolded: a lane already open stays where the user panned.
 */
function useRevealUnfoldedLane(
  grafts: ReturnType<typeof useFamilyGrafts>,
  viewport: ReturnType<typeof useGraphViewport>,
) {
  const { chips, revealingRef } = grafts;
  const { size, transformRef, moveTo, measured } = viewport;
  useEffect(() => {
    const memberId = revealingRef.current;
    if (memberId === null || !measured) return;
    const chip = chips.find((c) => c.member.id === memberId && c.lane.length > 0);
    if (!chip) return;
    const box = chipStackBox(chip);
    const now = transformRef.current;
    if (!isRectInView(box, now, size.width, size.height)) {
      moveTo(revealRect(box, now, size.width, size.height, LANE_REVEAL_INSET));
    }
    if (chip.lane[0]?.kind !== 'status' || chip.lane[0].error) revealingRef.current = null;
  }, [chips, revealingRef, size, transformRef, moveTo, measured]);
}

/** Pixels kept between a lane brought into view and the pane's edges. */
const LANE_REVEAL_INSET = 24;

/** The open file's family as chips and lanes on this layout (familyGrafts.ts), and their actions. */
function useFamilyGrafts(layout: GraphLayout | null) {
  const store = useAppStore();
  const openId = useApp((s) => s.session?.id ?? null);
  const family = useApp((s) => s.family);
  const unfolded = useApp(unfoldedLanesOf);
  const loads = useApp((s) => s.laneLoads);
  const chips = useMemo(() => {
    if (!layout || !family || openId === null || family.sessionId !== openId) return [];
    return familyGrafts({ layout, members: family.members, openId, unfolded, loads });
  }, [layout, family, openId, unfolded, loads]);
  const bounds = useMemo(() => chipsBounds(chips), [chips]);
  const onOpen = useCallback(
    (memberId: string, entryId: string | null) => void store.getState().openFamilyMember(memberId, entryId),
    [store],
  );
  /** The lane the user just unfolded, until it is in view with its rows (useRevealUnfoldedLane). */
  const revealingRef = useRef<string | null>(null);
  const onToggleLane = useCallback(
    (memberId: string) => {
      store.getState().toggleLane(memberId);
      revealingRef.current = unfoldedLanesOf(store.getState()).has(memberId) ? memberId : null;
    },
    [store],
  );
  return { chips, bounds, unfolded, loads, onOpen, onToggleLane, revealingRef };
}
