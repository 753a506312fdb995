import { describe, expect, it } from 'vitest';
import { layoutGraph, nodesInRect, type GraphLayout } from '../../layout/graphLayout';
import { selectionCoverage } from '../../layout/selectionRect';
import { visibleRect, type Transform } from '../../layout/viewport';
import type { NodeFacts } from './nodeFacts';
import { canvasPixels, paintGraph, type GraphScene, type PaintContext, type PathLike } from './paintGraph';
import type { Palette } from './palette';

/** A path that remembers its rectangles. */
class RecordedPath implements PathLike {
  readonly rects: [number, number, number, number][] = [];
  rect(x: number, y: number, width: number, height: number): void {
    this.rects.push([x, y, width, height]);
  }
}

interface Stroke {
  box: [number, number, number, number];
  color: unknown;
  width: number;
  dash: number[];
}

/** A 2D context that records what was filled, outlined and written, with the style in force. */
class RecordingContext implements PaintContext<RecordedPath> {
  strokeStyle: unknown = '';
  fillStyle: unknown = '';
  lineWidth = 1;
  font = '';
  private dash: number[] = [];
  readonly fills: { color: unknown; rects: [number, number, number, number][] }[] = [];
  readonly strokes: Stroke[] = [];
  readonly texts: string[] = [];
  readonly clears: [number, number, number, number][] = [];
  readonly transforms: number[][] = [];
  lineSegments = 0;
  setTransform(...m: [number, number, number, number, number, number]): void {
    this.transforms.push(m);
  }
  clearRect(x: number, y: number, width: number, height: number): void {
    this.clears.push([x, y, width, height]);
  }
  beginPath(): void {}
  moveTo(): void {}
  lineTo(): void {
    this.lineSegments++;
  }
  stroke(): void {}
  fill(path: RecordedPath): void {
    this.fills.push({ color: this.fillStyle, rects: path.rects });
  }
  rect(): void {}
  strokeRect(x: number, y: number, width: number, height: number): void {
    this.strokes.push({
      box: [x, y, width, height],
      color: this.strokeStyle,
      width: this.lineWidth,
      dash: this.dash,
    });
  }
  setLineDash(segments: number[]): void {
    this.dash = segments;
  }
  save(): void {}
  restore(): void {}
  clip(): void {}
  fillText(text: string): void {
    this.texts.push(text);
  }
  /** The colour each rectangle was filled with, by its top-left corner. */
  fillColorsAt(x: number, y: number): unknown[] {
    return this.fills.filter((f) => f.rects.some(([rx, ry]) => rx === x && ry === y)).map((f) => f.color);
  }
}

const palette: Palette = {
  user: 'user-colour',
  assistant: 'assistant-colour',
  tool: 'tool-colour',
  summary: 'summary-colour',
  settings: 'settings-colour',
  custom: 'custom-colour',
  other: 'other-colour',
  link: 'link-colour',
  linkActive: 'link-active-colour',
  select: 'select-colour',
  panel: 'panel-colour',
  border: 'border-colour',
  accent: 'accent-colour',
  match: 'match-colour',
  text: 'text-colour',
  error: 'error-colour',
};

/** A root with twelve children side by side: wider than an 800-pixel view at scale 1. */
function wideLayout(): GraphLayout {
  const children = Array.from({ length: 12 }, (_, i) => `c${i}`);
  return layoutGraph({ roots: ['root'], children: (id) => (id === 'root' ? children : []) });
}

function sceneOf(layout: GraphLayout, transform: Transform, extra: Partial<GraphScene> = {}): GraphScene {
  const view = visibleRect(transform, 800, 600);
  const ids = (index: number) => [layout.nodes[index]!.id];
  const multiSelection = extra.multiSelection ?? new Set<string>();
  return {
    coverageAt: (index) => selectionCoverage(layout, index, multiSelection),
    layout,
    transform,
    view,
    visible: nodesInRect(layout, view),
    domCards: false,
    selectedNode: undefined,
    matches: null,
    multiSelection: new Set(),
    factsAt: (index): NodeFacts => ({
      ids: ids(index),
      kind: index === 0 ? 'user' : 'assistant',
      active: false,
      leaf: false,
      leafBelow: false,
      folded: 0,
      text: `text of ${layout.nodes[index]!.id}`,
      error: false,
    }),
    ...extra,
  };
}

/** The top-left corner of a node's box, in layout coordinates. */
function cornerOf(layout: GraphLayout, index: number): [number, number] {
  return [layout.x[index]! - layout.nodeWidth / 2, layout.y[index]! - layout.nodeHeight / 2];
}

function paint(scene: GraphScene | null): RecordingContext {
  const ctx = new RecordingContext();
  paintGraph(ctx, canvasPixels(800, 600, 2), 2, scene, palette, () => new RecordedPath());
  return ctx;
}

/** A transform at scale k that puts the node in the middle of the 800×600 view. */
function centredOn(layout: GraphLayout, index: number, k = 1): Transform {
  return { k, tx: 400 - k * layout.x[index]!, ty: 300 - k * layout.y[index]! };
}

describe('paintGraph', () => {
  it('clears the whole canvas at its pixel size and paints nothing without a scene', () => {
    const ctx = paint(null);
    expect(ctx.clears).toEqual([[0, 0, 1600, 1200]]);
    expect(ctx.fills).toEqual([]);
    expect(ctx.strokes).toEqual([]);
    expect(ctx.lineSegments).toBe(0);
  });

  it('maps layout coordinates to device pixels through the view transform and the pixel ratio', () => {
    const layout = wideLayout();
    const ctx = paint(sceneOf(layout, { k: 0.5, tx: 10, ty: 20 }));
    expect(ctx.transforms).toEqual([
      [1, 0, 0, 1, 0, 0],
      [1, 0, 0, 1, 20, 40],
    ]);
  });

  it('paints a box (panel and kind stripe) for each node inside the view and none for the nodes outside', () => {
    const layout = wideLayout();
    const scene = sceneOf(layout, centredOn(layout, 0));
    expect(scene.visible.length).toBeGreaterThan(1);
    expect(scene.visible.length).toBeLessThan(layout.nodes.length);
    const ctx = paint(scene);
    const panels = ctx.fills.find((f) => f.color === palette.panel)!.rects;
    expect(panels.map(([x, y]) => [x, y]).sort()).toEqual(
      scene.visible.map((i) => cornerOf(layout, i)).sort(),
    );
    for (const index of scene.visible) {
      expect(ctx.fillColorsAt(...cornerOf(layout, index)).sort()).toEqual(
        [palette.panel, index === 0 ? palette.user : palette.assistant].sort(),
      );
    }
    expect(ctx.texts.sort()).toEqual(scene.visible.map((i) => `text of ${layout.nodes[i]!.id}`).sort());
  });

  it('paints only the links while the DOM cards draw the nodes', () => {
    const layout = wideLayout();
    const ctx = paint(sceneOf(layout, centredOn(layout, 0), { domCards: true }));
    expect(ctx.lineSegments).toBeGreaterThan(0);
    expect(ctx.fills).toEqual([]);
    expect(ctx.strokes).toEqual([]);
    expect(ctx.texts).toEqual([]);
  });

  it('outlines the selected node in the selection colour, 3 pixels wide, solid', () => {
    const layout = wideLayout();
    const selected = 6;
    const ctx = paint(sceneOf(layout, centredOn(layout, selected), { selectedNode: selected }));
    const [x, y] = cornerOf(layout, selected);
    expect(ctx.strokes).toEqual([
      { box: [x, y, layout.nodeWidth, layout.nodeHeight], color: palette.select, width: 3, dash: [] },
    ]);
  });

  it('outlines the leaf 2.5 pixels wide and rings it with a dashed line 4 pixels outside, in the accent colour', () => {
    const layout = wideLayout();
    const leaf = 6;
    const base = sceneOf(layout, centredOn(layout, leaf, 2));
    const ctx = paint({ ...base, factsAt: (i) => ({ ...base.factsAt(i), leaf: i === leaf }) });
    const [x, y] = cornerOf(layout, leaf);
    const gap = 4 / 2;
    expect(ctx.strokes).toEqual([
      {
        box: [x, y, layout.nodeWidth, layout.nodeHeight],
        color: palette.linkActive,
        width: 2.5 / 2,
        dash: [],
      },
      {
        box: [x - gap, y - gap, layout.nodeWidth + 2 * gap, layout.nodeHeight + 2 * gap],
        color: palette.accent,
        width: 2 / 2,
        dash: [4 / 2, 3 / 2],
      },
    ]);
  });

  it('fills a node the search matched in the match colour instead of the panel colour', () => {
    const layout = wideLayout();
    const matched = 6;
    const ctx = paint(
      sceneOf(layout, centredOn(layout, matched), { matches: new Set([layout.nodes[matched]!.id]) }),
    );
    expect(ctx.fillColorsAt(...cornerOf(layout, matched)).sort()).toEqual(
      [palette.assistant, palette.match].sort(),
    );
    expect(ctx.fillColorsAt(...cornerOf(layout, 7)).sort()).toEqual(
      [palette.assistant, palette.panel].sort(),
    );
  });

  it('far out, draws each node as one box in its kind colour (error colour for a failed entry), no text', () => {
    const layout = wideLayout();
    const base = sceneOf(layout, { k: 0.05, tx: 100, ty: 100 });
    expect(base.visible).toHaveLength(layout.nodes.length);
    const ctx = paint({ ...base, factsAt: (i) => ({ ...base.factsAt(i), error: i === 3 }) });
    expect(ctx.fills.find((f) => f.color === palette.panel)).toBeUndefined();
    expect(ctx.fillColorsAt(...cornerOf(layout, 3))).toEqual([palette.error]);
    expect(ctx.fillColorsAt(...cornerOf(layout, 0))).toEqual([palette.user]);
    expect(ctx.texts).toEqual([]);
  });

  it('bands every node of the multi-entry selection in the summary colour', () => {
    const layout = wideLayout();
    const chosen = [6, 7];
    const ctx = paint(
      sceneOf(layout, centredOn(layout, 6), {
        multiSelection: new Set(chosen.map((i) => layout.nodes[i]!.id)),
      }),
    );
    const bands = ctx.strokes.filter((s) => s.color === palette.summary);
    expect(bands.map((s) => s.box)).toEqual(
      chosen.map((i) => {
        const [x, y] = cornerOf(layout, i);
        return [x - 3, y - 3, layout.nodeWidth + 6, layout.nodeHeight + 6];
      }),
    );
    expect(bands.map((s) => s.dash)).toEqual([[], []]);
  });

  it('draws a partly selected run or fold with a dashed band, a wholly selected one solid', () => {
    const layout = wideLayout();
    const ctx = paint(
      sceneOf(layout, centredOn(layout, 6), {
        coverageAt: (i) => (i === 6 ? 'partial' : i === 7 ? 'all' : null),
      }),
    );
    // coverageAt decides; a non-empty selection turns the bands on.
    const scene = sceneOf(layout, centredOn(layout, 6), {
      multiSelection: new Set(['c5']),
      coverageAt: (i) => (i === 6 ? 'partial' : i === 7 ? 'all' : null),
    });
    const bands = paint(scene).strokes.filter((s) => s.color === palette.summary);
    expect(bands.map((s) => s.dash.length > 0)).toEqual([true, false]);
    expect(ctx.strokes.filter((s) => s.color === palette.summary)).toEqual([]);
  });

  it('rings the node that holds the hidden leaf (leaf ↓) as it rings the leaf, and writes a fold’s ⊞N', () => {
    const layout = wideLayout();
    const base = sceneOf(layout, centredOn(layout, 6));
    const ctx = paint({
      ...base,
      factsAt: (i) => ({ ...base.factsAt(i), leafBelow: i === 6, folded: i === 6 ? 4 : 0 }),
    });
    const rings = ctx.strokes.filter((s) => s.color === palette.accent && s.dash.length > 0);
    const [x, y] = cornerOf(layout, 6);
    expect(rings).toHaveLength(1);
    expect(rings[0]!.box[0]).toBeLessThan(x);
    expect(rings[0]!.box[1]).toBeLessThan(y);
    expect(ctx.texts).toContain(`⊞4 text of ${layout.nodes[6]!.id}`);
  });
});
