// The snapshot worker's entry: started by snapshot.ts as `new Worker(new URL(...), { type:
// 'module' })`. Reading and decoding the snapshot (the text decoding, `JSON.parse` of each chunk
// line, the column decode) here keeps the page's main thread free to draw the first rows.

import { serveSnapshots } from './snapshotService';

serveSnapshots(self as unknown as Parameters<typeof serveSnapshots>[0]);
