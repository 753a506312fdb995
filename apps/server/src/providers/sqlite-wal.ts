// oh-my-pi's agent.db is a SQLite database in WAL mode: a write lands first in `agent.db-wal` and
// reaches `agent.db` only at a checkpoint, so a login made a minute ago may exist only in the WAL.
// Canopy never opens the database through SQLite's own file I/O (that could checkpoint, write the
// shared-memory index or take locks beside oh-my-pi); it reads both files' bytes and lays the
// committed frames of the WAL over the database image here, in memory, as a reader would see them.
// Format: https://www.sqlite.org/fileformat2.html#walformat (see docs/summaries.md#where-credentials-come-from).

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

/** SQLite's WAL checksum: two running sums over 32-bit words, in the byte order the magic names. */
function checksum(
  bytes: Uint8Array,
  start: number,
  end: number,
  bigEndian: boolean,
  seed: [number, number],
): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let [s0, s1] = seed;
  for (let offset = start; offset < end; offset += 8) {
    s0 = (s0 + view.getUint32(offset, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(offset + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/** The page size of a database header (2 bytes at offset 16; 1 means 65536), or undefined. */
function databasePageSize(db: Uint8Array): number | undefined {
  if (db.length < 100) return undefined;
  const raw = (db[16]! << 8) | db[17]!;
  return raw === 1 ? 65536 : raw >= 512 ? raw : undefined;
}

/**
 * The database as a reader sees it: `db` with every frame of `wal` up to its last valid commit laid
 * over it (a frame is valid when its salts are the header's and its running checksum holds; frames
 * after the last commit belong to an unfinished transaction and are left out). The result is marked
 * as a rollback-journal database (header bytes 18–19 set to 1) so that an in-memory SQLite reads it
 * as it is and looks for no WAL of its own. `db` and `wal` are not changed.
 */
export function applyWal(db: Uint8Array, wal: Uint8Array | undefined): Uint8Array {
  let image = Uint8Array.from(db);
  if (wal && wal.length >= WAL_HEADER_BYTES) {
    const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
    const magic = view.getUint32(0, false);
    const pageSize = view.getUint32(8, false);
    const bigEndian = magic === MAGIC_BIG_ENDIAN;
    const sizeAgrees = db.length === 0 || databasePageSize(db) === pageSize;
    if (
      (magic === MAGIC_LITTLE_ENDIAN || bigEndian) &&
      pageSize >= 512 &&
      pageSize <= 65536 &&
      (pageSize & (pageSize - 1)) === 0 &&
      sizeAgrees
    ) {
      const salt1 = view.getUint32(16, false);
      const salt2 = view.getUint32(20, false);
      let sums = checksum(wal, 0, 24, bigEndian, [0, 0]);
      if (sums[0] === view.getUint32(24, false) && sums[1] === view.getUint32(28, false)) {
        const frameBytes = FRAME_HEADER_BYTES + pageSize;
        const pending: Array<{ page: number; offset: number }> = [];
        const committed: Array<{ page: number; offset: number }> = [];
        let pagesAfterCommit = 0;
        for (let offset = WAL_HEADER_BYTES; offset + frameBytes <= wal.length; offset += frameBytes) {
          const page = view.getUint32(offset, false);
          const commitSize = view.getUint32(offset + 4, false);
          if (view.getUint32(offset + 8, false) !== salt1 || view.getUint32(offset + 12, false) !== salt2)
            break;
          sums = checksum(wal, offset, offset + 8, bigEndian, sums);
          sums = checksum(wal, offset + FRAME_HEADER_BYTES, offset + frameBytes, bigEndian, sums);
          if (
            sums[0] !== view.getUint32(offset + 16, false) ||
            sums[1] !== view.getUint32(offset + 20, false)
          )
            break;
          if (page === 0) break;
          pending.push({ page, offset: offset + FRAME_HEADER_BYTES });
          if (commitSize > 0) {
            committed.push(...pending.splice(0));
            pagesAfterCommit = commitSize;
          }
        }
        if (committed.length > 0) {
          const size = pagesAfterCommit * pageSize;
          const next = new Uint8Array(size);
          next.set(image.subarray(0, Math.min(image.length, size)));
          for (const { page, offset } of committed) {
            if (page <= pagesAfterCommit)
              next.set(wal.subarray(offset, offset + pageSize), (page - 1) * pageSize);
          }
          image = next;
        }
      }
    }
  }
  if (image.length >= 100) {
    image[18] = 1;
    image[19] = 1;
  }
  return image;
}
