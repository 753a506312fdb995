// The graph's viewport: the size of its box and the pan/zoom transform, with the moves the user
// makes (wheel, drag, the toolbar, the minimap) and the ones the view makes itself (fit, centre,
// show the leaf). The box keeps its centre through a resize.

import { useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import type { GraphLayout, Rect } from '../../layout/graphLayout';
import {
  centerOn,
  isPointClear,
  isRectInView,
  minimapSize,
  panBy,
  wholeTreeView,
  zoomAt,
  type ScreenBox,
  type Transform,
} from '../../layout/viewport';
import { MAP_BORDER, MAP_MARGIN } from './Minimap';

/** Below this scale card text is unreadable; the canvas draws boxes instead of DOM cards. */
export const MIN_DOM_SCALE = 0.45;
/** A node nearer than this many pixels to the edge (or the minimap) counts as hidden. */
const REVEAL_INSET = 40;

export interface Size {
  width: number;
  height: number;
}

export interface GraphViewport {
  containerRef: RefObject<HTMLDivElement | null>;
  size: Size;
  /** `size` is the box's as laid out, no longer the first render's guess. */
  measured: boolean;
  transform: Transform;
  /** The transform as of the latest move, for event handlers that run between renders. */
  transformRef: RefObject<Transform>;
  /** Where the minimap would sit (bottom-right) if it is open, whether or not it is shown. */
  mapBox: ScreenBox | null;
  /** The minimap's box while it is shown: only while the tree is larger than the view. */
  minimapBox: ScreenBox | null;
  moveTo(next: Transform): void;
  panBy(dx: number, dy: number): void;
  /** Zooms about the centre of the view. */
  zoomBy(factor: number): void;
  /** Centres the layout point (x, y) at the current scale. */
  centerAt(x: number, y: number): void;
  /** Shows the whole tree. */
  fit(): void;
  /** Centres the node, readable; with `onlyIfHidden`, only when it is not clearly in view. */
  centerOnNode(index: number | undefined, onlyIfHidden: boolean): void;
  /**
   * Brings the leaf into view: the whole tree when it fits with its cards still drawn (so that the
   * extra roots of a damaged file, or the branch beside the leaf, stay in sight), otherwise the leaf
   * centred.
   */
  showLeaf(index: number | undefined, onlyIfHidden: boolean): void;
}

/**
 * `marksBounds`: what is drawn beside the tree (the family's chips, GraphGrafts), taken into "the
 * whole tree" so that fitting shows them too.
 */
export function useGraphViewport(
  layout: GraphLayout | null,
  minimapOpen: boolean,
  marksBounds: Rect | null = null,
): GraphViewport {
  const containerRef = useRef<HTMLDivElement>(null);
  // A guess until the box is measured (below, before the first paint).
  const [size, setSize] = useState<Size>({ width: 800, height: 600 });
  const [measured, setMeasured] = useState(false);
  const [transform, setTransform] = useState<Transform>({ k: 1, tx: 0, ty: 0 });
  const transformRef = useRef(transform);
  useLayoutEffect(() => {
    transformRef.current = transform;
  }, [transform]);

  useLayoutEffect(() => {
    const element = containerRef.current;
    if (!element) return;
    // The box is measured by the observer's first callback, which the browser makes after laying
    // the page out and before painting it: reading clientWidth here, in the task that mounted the
    // graph, laid the whole page out there and then (20-45 ms traced of a 50k-200k open), and the
    // frame did it again. Rendered at once (flushSync), the measured size is in the first paint.
    let last: Size | null = null;
    // A resize (the session list folding away, a splitter drag) keeps the centre of the view where
    // it was, so what the user looked at stays in sight.
    const observer = new ResizeObserver(() => {
      const next = { width: element.clientWidth, height: element.clientHeight };
      if (last === null) {
        last = next;
        flushSync(() => {
          setSize(next);
          setMeasured(true);
        });
        return;
      }
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
    return () => observer.disconnect();
  }, []);

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
  // On a tree that fits, the minimap would be a box of dots covering nodes for nothing.
  const minimapBox =
    mapBox !== null && layout !== null && !isRectInView(layout.bounds, transform, size.width, size.height)
      ? mapBox
      : null;

  const moveTo = (next: Transform) => {
    transformRef.current = next;
    setTransform(next);
  };

  /** The whole tree, extra roots of a damaged file included (see wholeTreeView). */
  const wholeTree = (): Transform | null =>
    layout && layout.nodes.length > 0
      ? wholeTreeView(unionRect(layout.bounds, marksBounds), size.width, size.height, mapBox)
      : null;

  const isClear = (index: number) =>
    layout !== null &&
    isPointClear(
      transformRef.current,
      layout.x[index]!,
      layout.y[index]!,
      size.width,
      size.height,
      REVEAL_INSET,
      minimapBox,
    );

  const centerOnNode = (index: number | undefined, onlyIfHidden: boolean) => {
    if (!layout || index === undefined) return;
    if (onlyIfHidden && isClear(index)) return;
    const k = Math.max(transformRef.current.k, 0.6);
    moveTo(centerOn(layout.x[index]!, layout.y[index]!, size.width, size.height, k));
  };

  return {
    containerRef,
    size,
    measured,
    transform,
    transformRef,
    mapBox,
    minimapBox,
    moveTo,
    panBy: (dx, dy) => setTransform((t) => panBy(t, dx, dy)),
    zoomBy: (factor) => setTransform((t) => zoomAt(t, factor, size.width / 2, size.height / 2)),
    centerAt: (x, y) => setTransform((t) => centerOn(x, y, size.width, size.height, t.k)),
    fit() {
      const whole = wholeTree();
      if (whole) moveTo(whole);
    },
    centerOnNode,
    showLeaf(index, onlyIfHidden) {
      if (!layout || index === undefined) return;
      if (onlyIfHidden && isClear(index)) return;
      const whole = wholeTree();
      if (whole && whole.k >= MIN_DOM_SCALE) moveTo(whole);
      else centerOnNode(index, false);
    },
  };
}

function unionRect(a: Rect, b: Rect | null): Rect {
  if (!b) return a;
  return {
    minX: Math.min(a.minX, b.minX),
    minY: Math.min(a.minY, b.minY),
    maxX: Math.max(a.maxX, b.maxX),
    maxY: Math.max(a.maxY, b.maxY),
  };
}
