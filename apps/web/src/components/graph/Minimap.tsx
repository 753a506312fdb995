// The minimap: every node as a dot, drawn once per layout; the viewport rectangle is drawn over it.
// Click or drag to move the view.

import { useEffect, useRef } from 'react';
import type { GraphLayout } from '../../layout/graphLayout';
import { minimapSize, visibleRect, type Transform } from '../../layout/viewport';

/** Distance from the drawing's bottom-right corner (see .minimap in styles.css), border included. */
export const MAP_MARGIN = 10;
export const MAP_BORDER = 1;

export function Minimap({
  layout,
  transform,
  width,
  height,
  palette,
  onCenter,
}: {
  layout: GraphLayout;
  transform: Transform;
  width: number;
  height: number;
  palette: { link: string; accent: string; panel: string };
  onCenter: (x: number, y: number) => void;
}) {
  const baseRef = useRef<HTMLCanvasElement>(null);
  const frameRef = useRef<HTMLCanvasElement>(null);
  const b = layout.bounds;
  const { width: MAP_WIDTH, height: MAP_HEIGHT } = minimapSize(b);
  const bw = Math.max(1, b.maxX - b.minX);
  const bh = Math.max(1, b.maxY - b.minY);
  const scale = Math.min(MAP_WIDTH / bw, MAP_HEIGHT / bh);
  const offsetX = (MAP_WIDTH - bw * scale) / 2;
  const offsetY = (MAP_HEIGHT - bh * scale) / 2;

  useEffect(() => {
    const canvas = baseRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const dpr = globalThis.devicePixelRatio || 1;
    canvas.width = MAP_WIDTH * dpr;
    canvas.height = MAP_HEIGHT * dpr;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    // Pixels written straight into an image buffer: one fillRect per node costs far too much at
    // 100,000 nodes, and the minimap is redrawn on every layout change.
    const pw = canvas.width;
    const ph = canvas.height;
    const image = ctx.createImageData(pw, ph);
    const pixels = new Uint32Array(image.data.buffer);
    ctx.fillStyle = palette.link;
    const hex = String(ctx.fillStyle);
    const rgb = /^#([0-9a-f]{6})$/i.test(hex) ? Number.parseInt(hex.slice(1), 16) : 0x888888;
    // ImageData is RGBA in memory; on little-endian machines a Uint32 reads it as ABGR.
    const color = ((0xff << 24) | ((rgb & 0xff) << 16) | (rgb & 0xff00) | ((rgb >> 16) & 0xff)) >>> 0;
    const dot = Math.max(1, Math.min(4 * dpr, Math.round(layout.nodeWidth * scale * dpr)));
    const dotH = Math.max(1, Math.round(dot / 2));
    for (let i = 0; i < layout.nodes.length; i++) {
      const px = Math.round((offsetX + (layout.x[i]! - b.minX) * scale) * dpr - dot / 2);
      const py = Math.round((offsetY + (layout.y[i]! - b.minY) * scale) * dpr);
      for (let dy = 0; dy < dotH; dy++) {
        const row = py + dy;
        if (row < 0 || row >= ph) continue;
        for (let dx = 0; dx < dot; dx++) {
          const col = px + dx;
          if (col >= 0 && col < pw) pixels[row * pw + col] = color;
        }
      }
    }
    ctx.putImageData(image, 0, 0);
  }, [layout, scale, offsetX, offsetY, b.minX, b.minY, palette, MAP_WIDTH, MAP_HEIGHT]);

  useEffect(() => {
    const canvas = frameRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const dpr = globalThis.devicePixelRatio || 1;
    canvas.width = MAP_WIDTH * dpr;
    canvas.height = MAP_HEIGHT * dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, MAP_WIDTH, MAP_HEIGHT);
    const r = visibleRect(transform, width, height);
    ctx.strokeStyle = palette.accent;
    ctx.lineWidth = 1.5;
    const x = offsetX + (r.minX - b.minX) * scale;
    const y = offsetY + (r.minY - b.minY) * scale;
    ctx.strokeRect(x, y, Math.max(3, (r.maxX - r.minX) * scale), Math.max(3, (r.maxY - r.minY) * scale));
  }, [transform, width, height, scale, offsetX, offsetY, b.minX, b.minY, palette, MAP_WIDTH, MAP_HEIGHT]);

  const toLayout = (clientX: number, clientY: number, element: HTMLElement) => {
    const box = element.getBoundingClientRect();
    return [
      (clientX - box.left - offsetX) / scale + b.minX,
      (clientY - box.top - offsetY) / scale + b.minY,
    ] as const;
  };

  return (
    <div
      className="minimap"
      data-testid="graph.minimap"
      style={{ width: MAP_WIDTH, height: MAP_HEIGHT }}
      onPointerDown={(e) => {
        e.stopPropagation();
        e.currentTarget.setPointerCapture(e.pointerId);
        onCenter(...toLayout(e.clientX, e.clientY, e.currentTarget));
      }}
      onPointerMove={(e) => {
        if (e.buttons !== 1) return;
        e.stopPropagation();
        onCenter(...toLayout(e.clientX, e.clientY, e.currentTarget));
      }}
      onPointerUp={(e) => e.stopPropagation()}
    >
      <canvas ref={baseRef} style={{ position: 'absolute', width: MAP_WIDTH, height: MAP_HEIGHT }} />
      <canvas ref={frameRef} style={{ position: 'absolute', width: MAP_WIDTH, height: MAP_HEIGHT }} />
    </div>
  );
}
