import { describe, expect, it } from 'vitest';
import {
  countOf,
  formatBytes,
  formatCost,
  formatCount,
  formatRelativeTime,
  formatTimestamp,
  formatTokens,
  prepareFormatters,
} from './format';

describe('format', () => {
  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(100 * 1024 * 1024)).toBe('100 MB');
  });
  it('formats tokens and cost', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(1234)).toBe('1.2k');
    expect(formatTokens(45_600)).toBe('46k');
    expect(formatCost(0.003)).toBe('$0.0030');
    expect(formatCost(1.5)).toBe('$1.50');
  });
  it('formats relative times', () => {
    const now = Date.UTC(2026, 0, 10);
    expect(formatRelativeTime(now - 10_000, now)).toBe('just now');
    expect(formatRelativeTime(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatRelativeTime(now - 26 * 3600_000, now)).toBe('yesterday');
    expect(formatRelativeTime(Date.UTC(2025, 11, 1), now)).toBe('2025-12-01');
  });
  it('formats counts as toLocaleString does, with one formatter made once', () => {
    expect(formatCount(1_234_567)).toBe((1_234_567).toLocaleString());
    expect(countOf(12_345, 'entry', 'entries')).toBe(`${(12_345).toLocaleString()} entries`);
  });
  it('prepares the formatters one step per scheduled task', () => {
    const steps: Array<() => void> = [];
    prepareFormatters((step) => steps.push(step));
    expect(steps).toHaveLength(1);
    steps.shift()!();
    expect(steps).toHaveLength(1);
    steps.shift()!();
    expect(steps).toHaveLength(0);
  });
});

describe('formatTimestamp', () => {
  it('formats a date as toLocaleString does with the same options, and again with the kept formatter', () => {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    };
    for (const iso of ['2026-12-01T04:05:06.000Z', '1999-01-31T23:59:59.000Z'])
      expect(formatTimestamp(iso)).toBe(new Date(iso).toLocaleString(undefined, options));
  });

  it('returns a text that is not a date as it is', () => {
    expect(formatTimestamp('not a date')).toBe('not a date');
  });
});
