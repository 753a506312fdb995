// Paints the graph's canvas layer: the links always, and the node boxes too when the DOM cards are
// off (zoomed out, or too many nodes on screen). A pure function of its inputs: no React, no store,
// and only what is inside the viewport is touched, so a 100,000-entry tree pans and zooms smoothly.

import { busesInRect, type GraphLayout, type Rect } from '../../layout/graphLayout';
import type { Transform } from '../../layout/viewport';
import { isMatch, type FactsAt, type Matches } from './nodeFacts';
import type { Palette } from './palette';

/** The part of a path the painter uses (Path2D in the browser). */
export interface PathLike {
  rect(x: number, y: number, width: number, height: number): void;
}

/** The part of a 2D canvas context the painter uses (CanvasRenderingContext2D in the browser). */
export interface PaintContext<P extends PathLike> {
  strokeStyle: unknown;
  fillStyle: unknown;
  lineWidth: number;
  font: string;
  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
  clearRect(x: number, y: number, width: number, height: number): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  stroke(): void;
  fill(path: P): void;
  rect(x: number, y: number, width: number, height: number): void;
  strokeRect(x: number, y: number, width: number, height: number): void;
  setLineDash(segments: number[]): void;
  save(): void;
  restore(): void;
  clip(): void;
  fillText(text: string, x: number, y: number): void;
}

/** What is on screen: the layout, where the view is, and which nodes are marked. */
export interface GraphScene {
  layout: GraphLayout;
  transform: Transform;
  /** The layout rectangle in view (visibleRect of the transform). */
  view: Rect;
  /** Layout indices of the nodes inside `view`. */
  visible: readonly number[];
  /** True when the DOM cards draw the nodes, so the canvas paints the links only. */
  domCards: boolean;
  selectedNode: number | undefined;
  matches: Matches;
  multiSelection: ReadonlySet<string>;
  /** How much of each node the multi-entry selection holds (selectionRect.ts `selectionCoverage`). */
  coverageAt: (index: number) => 'all' | 'partial' | null;
  factsAt: FactsAt;
  /** Bring-back provenance (docs/bring-back.md#provenance): [source node, bring-back node] pairs, drawn dashed. */
  provenance?: ReadonlyArray<readonly [number, number]>;
}

/** The canvas's backing-store size for a box of CSS pixels on a screen of this pixel ratio. */
export function canvasPixels(width: number, height: number, dpr: number): { width: number; height: number } {
  return { width: Math.max(1, Math.floor(width * dpr)), height: Math.max(1, Math.floor(height * dpr)) };
}

/**
 * Clears the canvas (of `pixels` size) and paints the scene, if there is one. `newPath` makes the
 * batched fill paths (`new Path2D()` in the browser).
 */
export function paintGraph<P extends PathLike>(
  ctx: PaintContext<P>,
  pixels: { width: number; height: number },
  dpr: number,
  scene: GraphScene | null,
  palette: Palette,
  newPath: () => P,
): void {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, pixels.width, pixels.height);
  if (!scene) return;
  const { k, tx, ty } = scene.transform;
  ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * tx, dpr * ty);
  paintLinks(ctx, scene, palette);
  if (scene.provenance && scene.provenance.length > 0) paintProvenance(ctx, scene, palette);
  if (!scene.domCards) paintNodes(ctx, scene, palette, newPath);
}

/**
 * The dashed edges from the entries a bring-back was made of to the bring-back entry: from the
 * bottom of the source to the top of the bring-back, in the summary colour, so they read as "copied
 * from", never as the tree's own links.
 */
function paintProvenance<P extends PathLike>(
  ctx: PaintContext<P>,
  scene: GraphScene,
  palette: Palette,
): void {
  const { layout } = scene;
  const k = scene.transform.k;
  const halfH = layout.nodeHeight / 2;
  ctx.save();
  ctx.strokeStyle = palette.summary;
  ctx.lineWidth = lineWidthAt(k, 1.5);
  ctx.setLineDash([6 / k, 4 / k]);
  ctx.beginPath();
  for (const [from, to] of scene.provenance ?? []) {
    ctx.moveTo(layout.x[from]!, layout.y[from]! + halfH);
    ctx.lineTo(layout.x[to]!, layout.y[to]! - halfH);
  }
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.restore();
}

/** A line `n` screen pixels wide, never thinner than half a pixel. */
function lineWidthAt(k: number, n: number): number {
  return Math.max(n / k, 0.5 / k);
}

function paintLinks<P extends PathLike>(ctx: PaintContext<P>, scene: GraphScene, palette: Palette): void {
  const { layout, view, visible } = scene;
  const k = scene.transform.k;
  const halfH = layout.nodeHeight / 2;

  // Buses: parent stub down to mid-height, then the horizontal bar over its children.
  ctx.strokeStyle = palette.link;
  ctx.lineWidth = lineWidthAt(k, 1.2);
  ctx.beginPath();
  for (const bus of busesInRect(layout, view)) {
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
  ctx.lineWidth = lineWidthAt(k, 2.5);
  ctx.beginPath();
  for (const index of visible) {
    const parent = layout.parent[index]!;
    if (parent < 0 || !scene.factsAt(index).active) continue;
    const px = layout.x[parent]!;
    const py = layout.y[parent]!;
    const mid = py + layout.dy / 2;
    ctx.moveTo(px, py + halfH);
    ctx.lineTo(px, mid);
    ctx.lineTo(layout.x[index]!, mid);
    ctx.lineTo(layout.x[index]!, layout.y[index]! - halfH);
  }
  ctx.stroke();
}

function paintNodes<P extends PathLike>(
  ctx: PaintContext<P>,
  scene: GraphScene,
  palette: Palette,
  newPath: () => P,
): void {
  const { layout, visible, matches } = scene;
  const k = scene.transform.k;
  const halfH = layout.nodeHeight / 2;
  const halfW = layout.nodeWidth / 2;
  const tiny = k * layout.nodeWidth < 24;
  // Nodes are batched into one path per fill colour: tens of thousands of separate fillRect calls
  // are what makes a zoomed-out canvas slow.
  const fills = new Map<string, P>();
  const pathFor = (color: string) => {
    let path = fills.get(color);
    if (!path) fills.set(color, (path = newPath()));
    return path;
  };
  const outlined: { x: number; y: number; color: string; width: number }[] = [];
  const texts: { x: number; y: number; text: string }[] = [];
  let leafAt: { x: number; y: number } | null = null;
  for (const index of visible) {
    const facts = scene.factsAt(index);
    const x = layout.x[index]! - halfW;
    const y = layout.y[index]! - halfH;
    const isSelected = index === scene.selectedNode;
    const matched = isMatch(facts, matches);
    const kindColor = facts.archived ? palette.other : facts.error ? palette.error : palette[facts.kind];
    // Far out, a node would be thinner than a pixel and vanish: keep at least two pixels.
    const minSide = 2 / k;
    if (tiny && !matched)
      pathFor(kindColor).rect(
        x,
        y,
        Math.max(layout.nodeWidth, minSide),
        Math.max(layout.nodeHeight, minSide),
      );
    else {
      pathFor(matched ? palette.match : palette.panel).rect(x, y, layout.nodeWidth, layout.nodeHeight);
      pathFor(kindColor).rect(x, y, tiny ? layout.nodeWidth / 3 : 10, layout.nodeHeight);
    }
    if (isSelected || facts.leaf || facts.active) {
      outlined.push({
        x,
        y,
        color: isSelected ? palette.select : palette.linkActive,
        width: lineWidthAt(k, isSelected ? 3 : facts.leaf ? 2.5 : 1),
      });
    }
    if (facts.leaf || facts.leafBelow) leafAt = { x, y };
    if (!tiny && k > 0.25) {
      const fold = facts.folded > 0 ? `⊞${facts.folded} ` : '';
      texts.push({ x, y, text: fold + (facts.label ? `[${facts.label}] ${facts.text}` : facts.text) });
    }
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
    ctx.lineWidth = lineWidthAt(k, 2);
    ctx.setLineDash([4 / k, 3 / k]);
    ctx.strokeRect(leafAt.x - gap, leafAt.y - gap, layout.nodeWidth + 2 * gap, layout.nodeHeight + 2 * gap);
    ctx.setLineDash([]);
  }
  // The multi-entry selection (drag-select): a wide band in the summary colour around each node.
  if (scene.multiSelection.size > 0) {
    ctx.strokeStyle = palette.summary;
    ctx.lineWidth = lineWidthAt(k, 3);
    const pad = lineWidthAt(k, 3);
    for (const index of visible) {
      const coverage = scene.coverageAt(index);
      if (coverage === null) continue;
      // A run or fold only partly selected: a dashed band, not the whole selection's solid one.
      ctx.setLineDash(coverage === 'partial' ? [6 / k, 4 / k] : []);
      ctx.strokeRect(
        layout.x[index]! - halfW - pad,
        layout.y[index]! - halfH - pad,
        layout.nodeWidth + 2 * pad,
        layout.nodeHeight + 2 * pad,
      );
    }
    ctx.setLineDash([]);
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
}
