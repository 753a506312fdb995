// A draggable, keyboard-operable divider between two panes (the WAI-ARIA window splitter):
// drag it, or focus it and use the arrows (Shift for bigger steps), Home and End.

import { useRef } from 'react';
import { splitterKeyValue } from '../layout/panes';

export interface SplitterProps {
  label: string;
  testId: string;
  value: number;
  min: number;
  max: number;
  step: number;
  /** +1 when ArrowRight should increase the value (the measured pane is on the left), else -1. */
  grow: 1 | -1;
  /** The value for a pointer at this horizontal position. */
  valueAt: (clientX: number) => number;
  onChange: (value: number) => void;
  /** How assistive technology reads the value (a percentage, pixels…). */
  valueText: string;
  className?: string;
}

export function Splitter({
  label,
  testId,
  value,
  min,
  max,
  step,
  grow,
  valueAt,
  onChange,
  valueText,
  className,
}: SplitterProps) {
  const dragging = useRef(false);
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={Math.round(value * 100) / 100}
      aria-valuemin={min}
      aria-valuemax={max}
      aria-valuetext={valueText}
      tabIndex={0}
      data-testid={testId}
      className={`splitter${className ? ` ${className}` : ''}`}
      title={`${label}: drag, or focus and use ← →`}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        e.stopPropagation();
        e.currentTarget.setPointerCapture(e.pointerId);
        dragging.current = true;
        e.currentTarget.focus({ preventScroll: true });
      }}
      onPointerMove={(e) => {
        if (!dragging.current) return;
        onChange(valueAt(e.clientX));
      }}
      onPointerUp={(e) => {
        dragging.current = false;
        e.currentTarget.releasePointerCapture(e.pointerId);
      }}
      onKeyDown={(e) => {
        const next = splitterKeyValue(e.key, e.shiftKey, { value, min, max, step }, grow);
        if (next === null) return;
        // The arrows also move the tree selection page-wide; here they move the divider only.
        e.preventDefault();
        e.stopPropagation();
        onChange(next);
      }}
    />
  );
}
