// The graph: node-link drawing of the (filtered) tree laid out by d3-hierarchy. Links and, when
// zoomed out, the nodes are painted on a canvas; when zoomed in far enough to read, the nodes on
// screen become DOM cards (clickable, with test ids). Either way only what is inside the viewport
// is touched, so a 100,000-entry tree pans and zooms smoothly.

import { ViewFlags, tokenizeQuery, type ViewTree } from '@canopy/session-core';
import { useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { busesInRect, nodesInRect, type GraphLayout } from '../layout/graphLayout';
import {
  centerOn,
  isPointClear,
  isRectInView,
  minimapSize,
  panBy,
  visibleRect,
  wholeTreeView,
  zoomAt,
  type ScreenBox,
  type Transform,
} from '../layout/viewport';
import { entryKind, KIND_COLOR_VAR, type EntryKind } from '../lib/entryKind';
import type { VisibleRows } from '../store/derived';
import { selectedIdOf } from '../store/appStore';
import { useApp, useAppStore, useDerived } from '../store/context';
import { leafIdOf } from '../store/selectors';
import { MAP_BORDER, MAP_MARGIN, Minimap } from './Minimap';
import { nodeInSelection } from '../layout/selectionRect';
import { useGraphRectSelect } from './useGraphRectSelect';

/** Above this many nodes on screen the cards stay on the canvas (DOM would be too slow). */
const MAX_DOM_NODES = 700;
/** A whole tree that fits at this scale or more opens fitted rather than centred on the leaf. */
const READABLE_FIT_SCALE = 0.75;
/** Below this scale card text is unreadable; draw boxes on the canvas instead. */
const MIN_DOM_SCALE = 0.45;

type Palette = Record<
  EntryKind | 'link' | 'linkActive' | 'select' | 'panel' | 'border' | 'accent' | 'match' | 'text' | 'error',
  string
>;

function readPalette(): Palette {
  const style = getComputedStyle(document.documentElement);
  const v = (name: string) => style.getPropertyValue(name).trim() || '#888';
  return {
    user: v('--user'),
    assistant: v('--assistant'),
    tool: v('--tool'),
    summary: v('--summary'),
    settings: v('--settings'),
    custom: v('--custom'),
    other: v('--settings'),
    link: v('--link'),
    linkActive: v('--link-active'),
    select: v('--accent'),
    panel: v('--panel'),
    border: v('--border'),
    accent: v('--accent'),
    match: v('--match'),
    text: v('--text'),
    error: v('--error'),
  };
}

interface NodeFacts {
  ids: string[];
  kind: EntryKind;
  active: boolean;
  leaf: boolean;
  text: string;
  label?: string;
  error: boolean;
}

function factsOf(
  layout: GraphLayout,
  index: number,
  tree: ViewTree,
  rows: VisibleRows,
  leafId: string | null,
): NodeFacts {
  const node = layout.nodes[index]!;
  const ids = node.kind === 'run' ? (node.members as string[]) : [node.id];
  const first = tree.get(ids[0]!);
  // The layout numbers its entries by row index (graphSourceFromRows): no id lookup needed.
  const row = rows.rows[layout.sourceIndex[index]!];
  if (node.kind === 'run') {
    const active = row?.onActivePath ?? false;
    return {
      ids,
      kind: 'other',
      active,
      leaf: leafId !== null && ids.includes(leafId),
      text: `⋯ ${ids.length} entries`,
      error: false,
    };
  }
  const entry = first;
  if (!entry) return { ids, kind: 'other', active: false, leaf: false, text: '', error: false };
  return {
    ids,
    kind: entryKind(entry.type, entry.role),
    active: row?.onActivePath ?? false,
    leaf: row?.isLeaf ?? false,
    // Some rows have no text (pi's session_info); a card still needs something to show.
    text: entry.text || `[${entry.type.replace(/_/g, ' ')}]`,
    ...(entry.label !== undefined ? { label: entry.label } : {}),
    error: (entry.flags & (ViewFlags.Error | ViewFlags.Aborted | ViewFlags.ToolError)) !== 0,
  };
}

export function GraphView() {
  const store = useAppStore();
  const leafId = useApp(leafIdOf);
  const query = useApp((s) => s.selector?.query ?? '');
  const searchRows = useApp((s) => s.selector?.indexById);
  const selectedId = useApp((s) => selectedIdOf(s));
  const expandedRuns = useApp((s) => s.expandedRuns);
  const followLeaf = useApp((s) => s.followLeaf);
  const theme = useApp((s) => s.theme);
  const revealTick = useApp((s) => s.revealTick);
  const multiSelection = useApp((s) => s.multiSelection);
  const [selectTool, setSelectTool] = useState(false);

  // The layout of a big tree takes a moment; deferring it lets the outline show a filter change or
  // a search keystroke first, and the graph follows.
  const selector = useDeferredValue(useApp((s) => s.selector));
  // Everything the layout reads comes from that one (deferred) selector state, so a render never
  // mixes the rows of one session or tree version with the tree of another.
  const tree = selector?.tree ?? null;
  const derived = useDerived();
  const rows = derived.graphRows(selector);
  const layout = derived.graphLayoutFor(tree, rows, expandedRuns);

  const containerRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState({ width: 800, height: 600 });
  const [transform, setTransform] = useState<Transform>({ k: 1, tx: 0, ty: 0 });
  const [minimapOpen, setMinimapOpen] = useState(true);
  const transformRef = useRef(transform);
  useLayoutEffect(() => {
    transformRef.current = transform;
  }, [transform]);
  const palette = useMemo(() => {
    void theme;
    return typeof document === 'undefined' ? null : readPalette();
  }, [theme]);

  const rectSelect = useGraphRectSelect(store, containerRef, layout, transformRef, selectTool);
  const tokens = useMemo(() => tokenizeQuery(query), [query]);
  const matches = query.trim() && searchRows ? searchRows : null;

  useLayoutEffect(() => {
    const element = containerRef.current;
    if (!element) return;
    let last = { width: element.clientWidth, height: element.clientHeight };
    // A resize (the session list folding away, a splitter drag) keeps the centre of the view where
    // it was, so what the user looked at stays in sight.
    const observer = new ResizeObserver(() => {
      const next = { width: element.clientWidth, height: element.clientHeight };
      if (next.width === last.width && next.height === last.height) return;
      const dx = (next.width - last.width) / 2;
      const dy = (next.height - last.height) / 2;
      last = next;
      setSize(next);
      if (last.width > 0 && last.height > 0) {
        const moved = panBy(transformRef.current, dx, dy);
        transformRef.current = moved;
        setTransform(moved);
      }
    });
    observer.observe(element);
    setSize(last);
    return () => observer.disconnect();
  }, []);

  const selectedNode = layout && selectedId ? layout.indexOfEntry.get(selectedId) : undefined;
  const leafNode = layout && leafId ? layout.indexOfEntry.get(leafId) : undefined;

  // Where the minimap sits (bottom-right corner) when it is shown. It is shown only while the tree
  // is larger than the view: on a tree that fits it would be a box of dots covering nodes for nothing.
  const mapBox: ScreenBox | null = useMemo(() => {
    if (!minimapOpen || !layout || layout.nodes.length === 0) return null;
    const map = minimapSize(layout.bounds);
    return {
      x: size.width - MAP_MARGIN - map.width - 2 * MAP_BORDER,
      y: size.height - MAP_MARGIN - map.height - 2 * MAP_BORDER,
      width: map.width + 2 * MAP_BORDER,
      height: map.height + 2 * MAP_BORDER,
    };
  }, [minimapOpen, layout, size.width, size.height]);
  const hasMinimap =
    mapBox !== null && layout !== null && !isRectInView(layout.bounds, transform, size.width, size.height);
  const minimapBox = hasMinimap ? mapBox : null;

  const moveTo = (next: Transform) => {
    transformRef.current = next;
    setTransform(next);
  };

  /** The whole tree, extra roots of a damaged file included (see wholeTreeView). */
  const wholeTree = (): Transform | null =>
    layout && layout.nodes.length > 0 ? wholeTreeView(layout.bounds, size.width, size.height, mapBox) : null;

  const fit = () => {
    const whole = wholeTree();
    if (whole) moveTo(whole);
  };

  const centerOnNode = (index: number | undefined, onlyIfHidden: boolean) => {
    if (!layout || index === undefined) return;
    const t = transformRef.current;
    const x = layout.x[index]!;
    const y = layout.y[index]!;
    if (onlyIfHidden && isPointClear(t, x, y, size.width, size.height, 40, minimapBox)) return;
    moveTo(centerOn(x, y, size.width, size.height, Math.max(t.k, 0.6)));
  };

  /**
   * Brings the leaf into view for "Follow leaf": the whole tree when it fits with its cards still
   * drawn (so that the extra roots of a damaged file, or the branch beside the leaf, stay in sight),
   * otherwise the leaf centred.
   */
  const showLeaf = (index: number | undefined, onlyIfHidden: boolean) => {
    if (!layout || index === undefined) return;
    const t = transformRef.current;
    if (
      onlyIfHidden &&
      isPointClear(t, layout.x[index]!, layout.y[index]!, size.width, size.height, 40, minimapBox)
    )
      return;
    const whole = wholeTree();
    if (whole && whole.k >= MIN_DOM_SCALE) moveTo(whole);
    else centerOnNode(index, false);
  };

  // A newly opened session starts on its leaf (or the deep-linked entry) at a readable scale.
  // Keyed on the tree object (one per loaded snapshot), not the session id: the deferred layout may
  // still be the previous session's for a render after the id changed.
  const fittedFor = useRef<ViewTree | null>(null);
  useEffect(() => {
    if (!layout || !tree || fittedFor.current === tree || size.width < 10) return;
    // The first render runs with a guessed size; wait for the measured one.
    const element = containerRef.current;
    if (!element || element.clientWidth !== size.width || element.clientHeight !== size.height) return;
    fittedFor.current = tree;
    const target = selectedNode ?? leafNode;
    // A tree that fits at a readable scale is shown whole; a bigger one opens on its leaf (or the
    // deep-linked entry), readable.
    const whole = wholeTreeView(layout.bounds, size.width, size.height, mapBox);
    moveTo(
      target === undefined || whole.k >= READABLE_FIT_SCALE
        ? whole
        : centerOn(layout.x[target]!, layout.y[target]!, size.width, size.height, 0.9),
    );
  }, [layout, tree, size, selectedNode, leafNode, mapBox]);

  // Follow the leaf when it moves (live appends, jumps, other tabs). The layout is deferred, so a
  // leaf that was just appended may not be in it yet: the move waits until the layout has it.
  const leafToFollow = useRef<string | null>(null);
  useEffect(() => {
    leafToFollow.current = followLeaf ? leafId : null;
  }, [leafId, followLeaf]);
  useEffect(() => {
    if (!followLeaf || leafToFollow.current === null || leafToFollow.current !== leafId) return;
    if (leafNode === undefined) return;
    leafToFollow.current = null;
    // The view follows the deferred layout catching up with the leaf: a one-off move, not a loop.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    showLeaf(leafNode, true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [leafId, followLeaf, leafNode, layout]);

  // Keep the selection on screen when it moves (keyboard, outline clicks).
  useEffect(() => {
    centerOnNode(selectedNode, true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [revealTick, selectedId]);

  const view = useMemo(() => visibleRect(transform, size.width, size.height), [transform, size]);
  const visible = useMemo(() => (layout ? nodesInRect(layout, view) : []), [layout, view]);
  const domCards = transform.k >= MIN_DOM_SCALE && visible.length <= MAX_DOM_NODES;

  // Canvas painting: links always, node boxes only when the DOM cards are off.
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !palette) return;
    const dpr = globalThis.devicePixelRatio || 1;
    const w = Math.max(1, Math.floor(size.width * dpr));
    const h = Math.max(1, Math.floor(size.height * dpr));
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (!layout || !tree) return;
    const { k, tx, ty } = transform;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * tx, dpr * ty);
    const halfH = layout.nodeHeight / 2;
    const halfW = layout.nodeWidth / 2;
    const lineWidth = (n: number) => Math.max(n / k, 0.5 / k);

    const activeOf = (index: number) => factsOf(layout, index, tree, rows, leafId).active;

    // Buses: parent stub down to mid-height, then the horizontal bar over its children.
    ctx.strokeStyle = palette.link;
    ctx.lineWidth = lineWidth(1.2);
    ctx.beginPath();
    const buses = busesInRect(layout, view);
    for (const bus of buses) {
      const px = layout.x[bus.parent]!;
      const py = layout.y[bus.parent]!;
      const mid = py + layout.dy / 2;
      ctx.moveTo(px, py + halfH);
      ctx.lineTo(px, mid);
      ctx.moveTo(Math.max(bus.minX, view.minX - 10), mid);
      ctx.lineTo(Math.min(bus.maxX, view.maxX + 10), mid);
    }
    for (const index of visible) {
      const parent = layout.parent[index]!;
      if (parent < 0) continue;
      const mid = layout.y[parent]! + layout.dy / 2;
      ctx.moveTo(layout.x[index]!, mid);
      ctx.lineTo(layout.x[index]!, layout.y[index]! - halfH);
    }
    ctx.stroke();

    // The active path on top, thicker, in the accent colour.
    ctx.strokeStyle = palette.linkActive;
    ctx.lineWidth = lineWidth(2.5);
    ctx.beginPath();
    for (const index of visible) {
      const parent = layout.parent[index]!;
      if (parent < 0 || !activeOf(index)) continue;
      const px = layout.x[parent]!;
      const py = layout.y[parent]!;
      const mid = py + layout.dy / 2;
      ctx.moveTo(px, py + halfH);
      ctx.lineTo(px, mid);
      ctx.lineTo(layout.x[index]!, mid);
      ctx.lineTo(layout.x[index]!, layout.y[index]! - halfH);
    }
    ctx.stroke();

    if (domCards) return;
    const tiny = k * layout.nodeWidth < 24;
    // Nodes are batched into one path per fill colour: tens of thousands of separate fillRect calls
    // are what makes a zoomed-out canvas slow.
    const fills = new Map<string, Path2D>();
    const pathFor = (color: string) => {
      let path = fills.get(color);
      if (!path) fills.set(color, (path = new Path2D()));
      return path;
    };
    const outlined: { x: number; y: number; color: string; width: number }[] = [];
    const texts: { x: number; y: number; text: string }[] = [];
    let leafAt: { x: number; y: number } | null = null;
    for (const index of visible) {
      const facts = factsOf(layout, index, tree, rows, leafId);
      const x = layout.x[index]! - halfW;
      const y = layout.y[index]! - halfH;
      const isSelected = index === selectedNode;
      const isMatch = matches !== null && facts.ids.some((id) => matches.has(id));
      const kindColor = facts.error ? palette.error : palette[facts.kind];
      // Far out, a node would be thinner than a pixel and vanish: keep at least two pixels.
      const minSide = 2 / k;
      if (tiny && !isMatch)
        pathFor(kindColor).rect(
          x,
          y,
          Math.max(layout.nodeWidth, minSide),
          Math.max(layout.nodeHeight, minSide),
        );
      else {
        pathFor(isMatch ? palette.match : palette.panel).rect(x, y, layout.nodeWidth, layout.nodeHeight);
        pathFor(kindColor).rect(x, y, tiny ? layout.nodeWidth / 3 : 10, layout.nodeHeight);
      }
      if (isSelected || facts.leaf || facts.active) {
        outlined.push({
          x,
          y,
          color: isSelected ? palette.select : palette.linkActive,
          width: lineWidth(isSelected ? 3 : facts.leaf ? 2.5 : 1),
        });
      }
      if (facts.leaf) leafAt = { x, y };
      if (!tiny && k > 0.25)
        texts.push({ x, y, text: facts.label ? `[${facts.label}] ${facts.text}` : facts.text });
    }
    for (const [color, path] of fills) {
      ctx.fillStyle = color;
      ctx.fill(path);
    }
    for (const box of outlined) {
      ctx.strokeStyle = box.color;
      ctx.lineWidth = box.width;
      ctx.strokeRect(box.x, box.y, layout.nodeWidth, layout.nodeHeight);
    }
    // The leaf's own mark, outside the box so that the selection's outline cannot hide it: a ring
    // a few screen pixels out, in the outline's "leaf" colour.
    if (leafAt) {
      const gap = 4 / k;
      ctx.strokeStyle = palette.accent;
      ctx.lineWidth = lineWidth(2);
      ctx.setLineDash([4 / k, 3 / k]);
      ctx.strokeRect(leafAt.x - gap, leafAt.y - gap, layout.nodeWidth + 2 * gap, layout.nodeHeight + 2 * gap);
      ctx.setLineDash([]);
    }
    // The multi-entry selection (drag-select): a wide band in the summary colour around each node.
    if (multiSelection.size > 0) {
      ctx.strokeStyle = palette.summary;
      ctx.lineWidth = lineWidth(3);
      for (const index of visible) {
        if (!nodeInSelection(layout, index, multiSelection)) continue;
        const pad = lineWidth(3);
        ctx.strokeRect(
          layout.x[index]! - halfW - pad,
          layout.y[index]! - halfH - pad,
          layout.nodeWidth + 2 * pad,
          layout.nodeHeight + 2 * pad,
        );
      }
    }
    if (texts.length > 0) {
      ctx.fillStyle = palette.text;
      ctx.font = '12px system-ui, sans-serif';
      for (const t of texts) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(t.x + 14, t.y, layout.nodeWidth - 18, layout.nodeHeight);
        ctx.clip();
        ctx.fillText(t.text, t.x + 16, t.y + halfH + 4);
        ctx.restore();
      }
    }
  }, [
    layout,
    tree,
    rows,
    transform,
    size,
    palette,
    visible,
    domCards,
    selectedNode,
    leafId,
    matches,
    view,
    multiSelection,
  ]);

  // ---- pointer interaction: drag to pan, click to select, double-click to jump
  const drag = useRef<{ x: number; y: number; moved: boolean } | null>(null);

  const hitTest = (clientX: number, clientY: number): number | undefined => {
    const element = containerRef.current;
    if (!element || !layout) return undefined;
    const box = element.getBoundingClientRect();
    const t = transformRef.current;
    const lx = (clientX - box.left - t.tx) / t.k;
    const ly = (clientY - box.top - t.ty) / t.k;
    return nodesInRect(layout, { minX: lx, maxX: lx, minY: ly, maxY: ly })[0];
  };

  const activate = (index: number, jump: boolean) => {
    if (!layout) return;
    const node = layout.nodes[index]!;
    if (node.kind === 'run') {
      store.getState().toggleRun(node.id);
      return;
    }
    if (jump) void store.getState().jump(node.id);
    else store.getState().select(node.id, false);
  };

  useEffect(() => {
    const element = containerRef.current;
    if (!element) return;
    // A non-passive listener so that the page does not scroll (or browser-zoom with Ctrl) meanwhile.
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const box = element.getBoundingClientRect();
      if (event.shiftKey) {
        setTransform((t) => panBy(t, -event.deltaY, -event.deltaX));
        return;
      }
      const factor = Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.0018));
      setTransform((t) => zoomAt(t, factor, event.clientX - box.left, event.clientY - box.top));
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, []);

  const zoomBy = (factor: number) => setTransform((t) => zoomAt(t, factor, size.width / 2, size.height / 2));

  const cards =
    domCards && layout && tree
      ? visible.map((index) => {
          const facts = factsOf(layout, index, tree, rows, leafId);
          const node = layout.nodes[index]!;
          const sx = (layout.x[index]! - layout.nodeWidth / 2) * transform.k + transform.tx;
          const sy = (layout.y[index]! - layout.nodeHeight / 2) * transform.k + transform.ty;
          const isMatch = matches !== null && facts.ids.some((id) => matches.has(id));
          return (
            <div
              key={node.kind === 'run' ? `run-${node.id}` : node.id}
              className="gnode"
              data-testid={node.kind === 'run' ? 'graph.run' : 'graph.node'}
              data-entry-id={node.kind === 'run' ? undefined : node.id}
              data-kind={node.kind === 'run' ? 'run' : facts.kind}
              data-active={facts.active || undefined}
              data-leaf={facts.leaf || undefined}
              data-selected={index === selectedNode || undefined}
              data-match={isMatch || undefined}
              data-multi={nodeInSelection(layout, index, multiSelection) || undefined}
              title={
                node.kind === 'run'
                  ? `${facts.ids.length} entries in a straight line: click to expand`
                  : facts.text
              }
              style={
                {
                  left: 0,
                  top: 0,
                  width: layout.nodeWidth,
                  height: layout.nodeHeight,
                  transform: `translate(${sx}px, ${sy}px) scale(${transform.k})`,
                  '--kind': facts.error ? 'var(--error)' : KIND_COLOR_VAR[facts.kind],
                } as React.CSSProperties
              }
              onPointerDown={(e) => {
                // A Shift-drag (or the Select tool) starting on a card draws the selection rectangle.
                if (!rectSelect.wants(e)) e.stopPropagation();
              }}
              onClick={(e) => {
                e.stopPropagation();
                activate(index, false);
              }}
              onDoubleClick={(e) => {
                e.stopPropagation();
                if (node.kind !== 'run') activate(index, true);
              }}
            >
              {facts.label && <span className="glabel">[{facts.label}]</span>}
              <span className="gtext">
                {tokens.length > 0 && isMatch ? <mark>{facts.text}</mark> : facts.text}
              </span>
              {facts.leaf && (
                <span
                  className="gleaf"
                  data-testid="graph.leaf"
                  title="The current leaf: the next message continues here"
                >
                  leaf
                </span>
              )}
            </div>
          );
        })
      : null;

  return (
    <div className="graph-pane">
      <div className="graph-controls" role="toolbar" aria-label="Graph view">
        <button type="button" data-testid="graph.fit" title="Fit the whole tree" onClick={fit}>
          Fit
        </button>
        <button
          type="button"
          data-testid="graph.zoom-in"
          title="Zoom in"
          aria-label="Zoom in"
          onClick={() => zoomBy(1.25)}
        >
          +
        </button>
        <button
          type="button"
          data-testid="graph.zoom-out"
          title="Zoom out"
          aria-label="Zoom out"
          onClick={() => zoomBy(0.8)}
        >
          −
        </button>
        <button
          type="button"
          data-testid="graph.follow-leaf"
          aria-pressed={followLeaf}
          title="Keep the leaf in view when it moves"
          onClick={() => {
            store.getState().setFollowLeaf(!followLeaf);
            if (!followLeaf) showLeaf(leafNode, false);
          }}
        >
          Follow leaf
        </button>
        <button
          type="button"
          data-testid="graph.center"
          title="Centre the view on the selected entry"
          onClick={() => centerOnNode(selectedNode, false)}
        >
          Center on selected
        </button>
        <button
          type="button"
          data-testid="graph.select-tool"
          aria-pressed={selectTool}
          title="Drag a rectangle to select entries for a summary (or hold Shift while dragging)"
          onClick={() => setSelectTool(!selectTool)}
        >
          Select
        </button>
        {expandedRuns.size > 0 && (
          <button
            type="button"
            data-testid="graph.collapse-runs"
            title="Compress the expanded runs again"
            onClick={() => store.getState().collapseAllRuns()}
          >
            Collapse runs
          </button>
        )}
        <button
          type="button"
          data-testid="graph.minimap-toggle"
          aria-pressed={minimapOpen}
          title={
            minimapOpen
              ? 'Hide the minimap (it shows only while the tree is larger than the view)'
              : 'Show the minimap while the tree is larger than the view'
          }
          onClick={() => setMinimapOpen(!minimapOpen)}
        >
          Minimap
        </button>
      </div>
      <div
        ref={containerRef}
        className="graph-view"
        data-testid="tree.graph"
        data-node-count={layout?.nodes.length ?? 0}
        data-visible-count={visible.length}
        data-scale={transform.k.toFixed(3)}
        data-select-tool={selectTool || undefined}
        tabIndex={-1}
        aria-label="Session tree (graph)"
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          if (rectSelect.begin(e)) return;
          (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
          drag.current = { x: e.clientX, y: e.clientY, moved: false };
        }}
        onPointerMove={(e) => {
          if (rectSelect.move(e)) return;
          const d = drag.current;
          if (!d) return;
          const dx = e.clientX - d.x;
          const dy = e.clientY - d.y;
          if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
          d.moved = true;
          d.x = e.clientX;
          d.y = e.clientY;
          setTransform((t) => panBy(t, dx, dy));
        }}
        onPointerUp={(e) => {
          if (rectSelect.end(e, hitTest)) return;
          const d = drag.current;
          drag.current = null;
          if (d && !d.moved) {
            const index = hitTest(e.clientX, e.clientY);
            if (index !== undefined) activate(index, false);
          }
        }}
        onDoubleClick={(e) => {
          const index = hitTest(e.clientX, e.clientY);
          if (index !== undefined) activate(index, true);
        }}
      >
        <canvas ref={canvasRef} className="graph-canvas" style={{ width: size.width, height: size.height }} />
        <div className="graph-overlay">{cards}</div>
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
        {hasMinimap && layout && palette && (
          <Minimap
            layout={layout}
            transform={transform}
            width={size.width}
            height={size.height}
            palette={palette}
            onCenter={(x, y) => setTransform((t) => centerOn(x, y, size.width, size.height, t.k))}
          />
        )}
      </div>
    </div>
  );
}
