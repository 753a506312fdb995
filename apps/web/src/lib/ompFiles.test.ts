import { describe, expect, it } from 'vitest';
import { artifactIdsIn, blobHashOf } from './ompFiles';

describe('oh-my-pi file references', () => {
  it('a blob reference is blob:sha256: and exactly 64 lower-case hex digits', () => {
    const hash = 'ab'.repeat(32);
    expect(blobHashOf(`blob:sha256:${hash}`)).toBe(hash);
    expect(blobHashOf(`blob:sha256:${hash}/../../x`)).toBeUndefined();
    expect(blobHashOf(`blob:sha256:${hash.toUpperCase()}`)).toBeUndefined();
    expect(blobHashOf('blob:sha256:../../etc/passwd')).toBeUndefined();
    expect(blobHashOf('iVBORw0KGgo=')).toBeUndefined();
  });

  it('artifact references are found in text blocks, each number once, anything after it ignored', () => {
    const content = [
      { type: 'text', text: 'truncated: artifact://3 and artifact://12, again artifact://3' },
      { type: 'image', data: 'artifact://99' },
      { type: 'text', text: 'artifact://../../etc artifact://007/../x' },
    ];
    expect(artifactIdsIn(content)).toEqual(['3', '12', '7']);
    expect(artifactIdsIn('see artifact://0')).toEqual(['0']);
    expect(artifactIdsIn(undefined)).toEqual([]);
  });
});
