// Drag-select on the graph: with Shift held (or the Select tool on) a drag draws a rectangle
// instead of panning, and the entries of the nodes it touches join the multi-entry selection.
// A Shift-click (a drag that did not move) toggles the node under the pointer.

import { useCallback, useRef, useState, type PointerEvent as ReactPointerEvent, type RefObject } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { GraphLayout, Rect } from '../../layout/graphLayout';
import { entriesInRect, rectBetween, screenRectToLayout, type Point } from '../../layout/selectionRect';
import type { Transform } from '../../layout/viewport';
import type { AppStore } from '../../store/appStore';

/** Below this many pixels of movement a drag is a click. */
const CLICK_SLOP = 4;

export interface GraphRectSelect {
  /** Whether a pointer-down with these modifiers starts a rectangle rather than a pan or a click. */
  wants(e: { shiftKey: boolean }): boolean;
  begin(e: ReactPointerEvent<HTMLElement>): boolean;
  move(e: ReactPointerEvent<HTMLElement>): boolean;
  end(e: ReactPointerEvent<HTMLElement>, hitTest: (x: number, y: number) => number | undefined): boolean;
  /** The rectangle being drawn, in pixels of the graph's box. */
  rect: Rect | null;
}

export function useGraphRectSelect(
  store: StoreApi<AppStore>,
  containerRef: RefObject<HTMLDivElement | null>,
  layout: GraphLayout | null,
  transformRef: RefObject<Transform>,
  selectTool: boolean,
): GraphRectSelect {
  const start = useRef<Point | null>(null);
  const [rect, setRect] = useState<Rect | null>(null);

  const local = (e: { clientX: number; clientY: number }): Point => {
    const box = containerRef.current?.getBoundingClientRect();
    return { x: e.clientX - (box?.left ?? 0), y: e.clientY - (box?.top ?? 0) };
  };
  const wants = useCallback((e: { shiftKey: boolean }) => e.shiftKey || selectTool, [selectTool]);

  return {
    wants,
    rect,
    begin(e) {
      if (!wants(e)) return false;
      e.currentTarget.setPointerCapture(e.pointerId);
      const at = local(e);
      start.current = at;
      setRect(rectBetween(at, at));
      return true;
    },
    move(e) {
      if (!start.current) return false;
      setRect(rectBetween(start.current, local(e)));
      return true;
    },
    end(e, hitTest) {
      const from = start.current;
      if (!from) return false;
      start.current = null;
      setRect(null);
      const to = local(e);
      const state = store.getState();
      if (Math.abs(to.x - from.x) + Math.abs(to.y - from.y) < CLICK_SLOP) {
        const index = hitTest(e.clientX, e.clientY);
        const node = index !== undefined && layout ? layout.nodes[index] : undefined;
        if (node) state.setMultiSelection(node.kind === 'run' ? node.members : [node.id], 'toggle');
        return true;
      }
      if (!layout) return true;
      const ids = entriesInRect(layout, screenRectToLayout(rectBetween(from, to), transformRef.current));
      if (ids.length > 0) state.setMultiSelection(ids, 'add');
      return true;
    },
  };
}
