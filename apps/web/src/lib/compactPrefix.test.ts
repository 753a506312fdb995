import { describe, expect, it } from 'vitest';
import { capPrefix } from './compactPrefix';

describe('capPrefix', () => {
  it('keeps a prefix that fits and hides nothing', () => {
    expect(capPrefix('│  ├─ ', 24)).toEqual({ hiddenLevels: 0, text: '│  ├─ ' });
  });
  it('keeps the innermost whole levels and counts the ones left out', () => {
    const prefix = '│  │     │  └─ ';
    expect(capPrefix(prefix, 6)).toEqual({ hiddenLevels: 3, text: '│  └─ ' });
    expect(capPrefix(prefix, 2)).toEqual({ hiddenLevels: 4, text: '└─ ' });
  });
});
