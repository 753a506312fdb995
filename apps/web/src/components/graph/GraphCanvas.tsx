// The graph's canvas layer: sizes the canvas to its box at the screen's pixel ratio and repaints it
// (paintGraph) whenever the scene or the palette changes. The first paint of a canvas sets up its
// 2D context and runs the painter's code for the first time, tens of milliseconds once; it runs in
// a task of its own, so that it does not lengthen the task that rendered the page (a passive
// effect runs in the task of whatever update React renders next, while a session opens the next
// part of its snapshot).

import { useEffect, useRef } from 'react';
import { canvasPixels, paintGraph, type GraphScene } from './paintGraph';
import type { Palette } from './palette';

export function GraphCanvas({
  width,
  height,
  scene,
  palette,
}: {
  width: number;
  height: number;
  /** Null while there is no layout: the canvas is cleared. */
  scene: GraphScene | null;
  palette: Palette | null;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const painted = useRef(false);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !palette) return;
    const paint = () => {
      const dpr = globalThis.devicePixelRatio || 1;
      const pixels = canvasPixels(width, height, dpr);
      if (canvas.width !== pixels.width) canvas.width = pixels.width;
      if (canvas.height !== pixels.height) canvas.height = pixels.height;
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      paintGraph(ctx, pixels, dpr, scene, palette, () => new Path2D());
      painted.current = true;
    };
    if (painted.current) {
      paint();
      return;
    }
    const task = setTimeout(paint, 0);
    return () => clearTimeout(task);
  }, [width, height, scene, palette]);

  return <canvas ref={canvasRef} className="graph-canvas" style={{ width, height }} />;
}
