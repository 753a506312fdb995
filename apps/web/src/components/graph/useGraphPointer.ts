// Pointer input on the graph's box (outside the DOM cards, which handle their own clicks): a drag
// pans, a click selects the node under the pointer, a double-click jumps to it. A drag that the
// rectangle selection wants (Shift, or the Select tool) goes to it instead. A right click on a node
// opens the entry menu (archive, restore).

import { useRef, type PointerEvent as ReactPointerEvent, type MouseEvent as ReactMouseEvent } from 'react';
import type { GraphLayout } from '../../layout/graphLayout';
import { nodeAtPoint } from './hitTest';
import type { GraphRectSelect } from './useGraphRectSelect';
import type { GraphViewport } from './useGraphViewport';

/** Below this many pixels of movement a press is a click, not a drag. */
const DRAG_SLOP = 4;

export interface GraphPointerHandlers {
  onPointerDown(e: ReactPointerEvent<HTMLElement>): void;
  onPointerMove(e: ReactPointerEvent<HTMLElement>): void;
  onPointerUp(e: ReactPointerEvent<HTMLElement>): void;
  onDoubleClick(e: ReactMouseEvent<HTMLElement>): void;
  onContextMenu(e: ReactMouseEvent<HTMLElement>): void;
}

export function useGraphPointer(
  viewport: GraphViewport,
  layout: GraphLayout | null,
  rectSelect: GraphRectSelect,
  onActivate: (index: number, jump: boolean) => void,
  onMenu: (index: number, clientX: number, clientY: number) => void = () => undefined,
): GraphPointerHandlers {
  const drag = useRef<{ x: number; y: number; moved: boolean } | null>(null);

  const hitTest = (clientX: number, clientY: number): number | undefined => {
    const element = viewport.containerRef.current;
    if (!element || !layout) return undefined;
    const box = element.getBoundingClientRect();
    return nodeAtPoint(layout, viewport.transformRef.current, clientX - box.left, clientY - box.top);
  };

  return {
    onPointerDown(e) {
      if (e.button !== 0) return;
      if (rectSelect.begin(e)) return;
      e.currentTarget.setPointerCapture(e.pointerId);
      drag.current = { x: e.clientX, y: e.clientY, moved: false };
    },
    onPointerMove(e) {
      if (rectSelect.move(e)) return;
      const d = drag.current;
      if (!d) return;
      const dx = e.clientX - d.x;
      const dy = e.clientY - d.y;
      if (!d.moved && Math.abs(dx) + Math.abs(dy) < DRAG_SLOP) return;
      d.moved = true;
      d.x = e.clientX;
      d.y = e.clientY;
      viewport.panBy(dx, dy);
    },
    onPointerUp(e) {
      if (rectSelect.end(e, hitTest)) return;
      const d = drag.current;
      drag.current = null;
      if (d && !d.moved) {
        const index = hitTest(e.clientX, e.clientY);
        if (index !== undefined) onActivate(index, false);
      }
    },
    onDoubleClick(e) {
      const index = hitTest(e.clientX, e.clientY);
      if (index !== undefined) onActivate(index, true);
    },
    onContextMenu(e) {
      const index = hitTest(e.clientX, e.clientY);
      if (index === undefined) return;
      e.preventDefault();
      onMenu(index, e.clientX, e.clientY);
    },
  };
}
