import { describe, expect, it } from 'vitest';
import { compactPrefix } from './compactPrefix';

describe('compactPrefix', () => {
  it('keeps a prefix that fits', () => {
    expect(compactPrefix('│  ├─ ', 10)).toBe('│  ├─ ');
  });
  it('drops whole outer levels behind an ellipsis, keeping the connector', () => {
    const prefix = '│  │     │  └─ ';
    expect(compactPrefix(prefix, 8)).toBe('…│  └─ ');
    expect(compactPrefix(prefix, 2)).toBe('…└─ ');
  });
});
