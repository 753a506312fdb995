// The graph's canvas layer: sizes the canvas to its box at the screen's pixel ratio and repaints it
// (paintGraph) whenever the scene or the palette changes.

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

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !palette) return;
    const dpr = globalThis.devicePixelRatio || 1;
    const pixels = canvasPixels(width, height, dpr);
    if (canvas.width !== pixels.width) canvas.width = pixels.width;
    if (canvas.height !== pixels.height) canvas.height = pixels.height;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    paintGraph(ctx, pixels, dpr, scene, palette, () => new Path2D());
  }, [width, height, scene, palette]);

  return <canvas ref={canvasRef} className="graph-canvas" style={{ width, height }} />;
}
