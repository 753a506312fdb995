// Canopy repairs its own crashed write (docs/safety.md#crash-repair). Before each append it records,
// owner-only in its state folder, where it writes and what: the file's real path and identity, the
// offset, the length, the SHA-256 and the bytes of the lines. The record is removed once the append
// returned (written and checked, or rolled back). A record still there when Canopy starts (or opens
// that session) is the trace of a crash mid-append (a `kill -9`, a power cut of the process): if the
// file is still that file and everything from the offset to its end is the start of what was being
// written, that partial line is Canopy's own and is truncated away; if the whole append is there, it
// had completed. Anything else (another program wrote after it, the file was replaced or changed)
// is left exactly as it is, and said. Either way the outcome is logged and shown to the page.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  FileSafetyError,
  lockStateOf,
  openConfinedSync,
  readAtSync,
  readBoundedNoFollowSync,
  sameFile,
} from './confined';
import { atomicWriteSync } from './files';
import { sessionIdOf } from './ids';

/** The folder of the records, inside the state folder. */
export const JOURNAL_FOLDER = 'appends';

/** The most bytes of a record read back (an append is at most a few MB: the request body limit). */
const MAX_RECORD_BYTES = 256 << 20;

/** Where and what one append writes. */
export interface AppendRecord {
  file: string;
  dev: number;
  ino: number;
  offset: number;
  data: Buffer;
}

interface RecordHead {
  v: 1;
  file: string;
  dev: number;
  ino: number;
  offset: number;
  length: number;
  sha256: string;
}

/** What a look at a leftover record found, and what was done. */
export interface RepairOutcome {
  sessionId: string;
  file: string;
  /**
   * `repaired`: Canopy's partial line was truncated away. `completed`: the append had been written
   * whole. `unwritten`: nothing of it reached the file. `left`: the file does not match, nothing
   * was changed. `later`: the file is not reachable now (outside the roots): the record is kept.
   */
  kind: 'repaired' | 'completed' | 'unwritten' | 'left' | 'later';
  /** What happened, without the file's name. */
  message: string;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** One record per session file (appends to one file never overlap: they share its queue). */
export class AppendJournal {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, JOURNAL_FOLDER);
  }

  private recordFile(file: string): string {
    return path.join(this.dir, sessionIdOf(file));
  }

  /** Records an append before its write. Throws when it cannot be recorded: then nothing is written. */
  record(append: AppendRecord): void {
    const head: RecordHead = {
      v: 1,
      file: append.file,
      dev: append.dev,
      ino: append.ino,
      offset: append.offset,
      length: append.data.length,
      sha256: sha256(append.data),
    };
    // Synced under a temporary name and renamed into place, owner-only from its first byte.
    atomicWriteSync(
      this.recordFile(append.file),
      Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`, 'utf8'), append.data]),
    );
  }

  /** The append returned (written, or rolled back and reported): its record goes. */
  clear(file: string): void {
    fs.rmSync(this.recordFile(file), { force: true });
  }

  /** Is there a leftover record for the session `sessionId`? */
  has(sessionId: string): boolean {
    return fs.existsSync(path.join(this.dir, sessionId));
  }

  /** Looks at every leftover record (at start): see {@link repair}. */
  repairAll(confined: (real: string) => boolean): RepairOutcome[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const outcomes: RepairOutcome[] = [];
    for (const name of names) {
      if (name.endsWith('.tmp')) {
        // A record being written when the process died: its append had not started.
        fs.rmSync(path.join(this.dir, name), { force: true });
        continue;
      }
      const outcome = this.repair(name, confined);
      if (outcome) outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * Looks at the leftover record of session `sessionId`, if any, and repairs Canopy's own partial
   * line when the file is still that file, ends inside that append, and holds exactly its first
   * bytes there (nothing else follows). The record is removed unless the file is out of reach.
   */
  repair(sessionId: string, confined: (real: string) => boolean): RepairOutcome | undefined {
    const recordFile = path.join(this.dir, sessionId);
    let record: { head: RecordHead; data: Buffer } | undefined;
    try {
      record = parseRecord(readBoundedNoFollowSync(recordFile, { maxBytes: MAX_RECORD_BYTES }).bytes);
    } catch (error) {
      if (error instanceof FileSafetyError && error.reason === 'deleted') return undefined;
      record = undefined;
    }
    if (!record || sessionIdOf(record.head.file) !== sessionId) {
      fs.rmSync(recordFile, { force: true });
      return undefined; // not a record Canopy wrote whole: its append had not started
    }
    const outcome = this.repairFile(sessionId, record.head, record.data, confined);
    if (outcome.kind !== 'later') fs.rmSync(recordFile, { force: true });
    return outcome;
  }

  private repairFile(
    sessionId: string,
    head: RecordHead,
    data: Buffer,
    confined: (real: string) => boolean,
  ): RepairOutcome {
    const { file, offset } = head;
    const outcome = (kind: RepairOutcome['kind'], message: string): RepairOutcome => ({
      sessionId,
      file,
      kind,
      message,
    });
    if (!confined(path.dirname(file))) {
      return outcome(
        'later',
        `Canopy's last write to it was cut off by a crash, and the file is not under the folders read now; it is looked at again when it is.`,
      );
    }
    let opened: { fd: number; stat: fs.Stats };
    try {
      opened = openConfinedSync(file, fs.constants.O_RDWR);
    } catch (error) {
      return outcome(
        'left',
        `Canopy's last write to it was cut off by a crash, but the file cannot be opened as it was (${(error as Error).message}); nothing was changed.`,
      );
    }
    const { fd, stat } = opened;
    try {
      const left = (why: string) =>
        outcome('left', `Canopy's last write to it was cut off by a crash, but ${why}; nothing was changed.`);
      if (!sameFile(stat, head)) return left('the file was replaced since');
      const size = stat.size;
      if (size === offset)
        return outcome(
          'unwritten',
          `Canopy's last write had not started when it stopped; the file is whole.`,
        );
      if (size < offset) return left('the file is shorter now than where that write began');
      if (offset > 0 && readAtSync(fd, offset - 1, 1)[0] !== 0x0a) {
        return left('the line before it no longer ends where it did');
      }
      const there = readAtSync(fd, offset, Math.min(size - offset, data.length));
      if (!there.equals(data.subarray(0, there.length))) {
        return left("the bytes after the file's last whole line are not Canopy's");
      }
      if (there.length === data.length) {
        return outcome('completed', `Canopy's last write had been written whole before it stopped.`);
      }
      if (size > offset + there.length) return left('another program wrote after it');
      if (lockStateOf(file, Date.now()).held) return left("oh-my-pi holds the session's lock now");
      // Nothing may have been appended since the look: the truncation is of our bytes only.
      if (fs.fstatSync(fd).size !== size) return left('another program is writing to it');
      fs.ftruncateSync(fd, offset);
      fs.fsyncSync(fd);
      return outcome(
        'repaired',
        `Canopy's last write was cut off by a crash after ${size - offset} of its ${data.length} bytes; that partial line was removed, and the file ends with its last whole line again.`,
      );
    } finally {
      fs.closeSync(fd);
    }
  }
}

function parseRecord(bytes: Buffer): { head: RecordHead; data: Buffer } | undefined {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return undefined;
  let head: RecordHead;
  try {
    head = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as RecordHead;
  } catch {
    return undefined;
  }
  const data = bytes.subarray(newline + 1);
  const valid =
    head?.v === 1 &&
    typeof head.file === 'string' &&
    path.isAbsolute(head.file) &&
    Number.isSafeInteger(head.offset) &&
    head.offset >= 0 &&
    head.length === data.length &&
    head.sha256 === sha256(data);
  return valid ? { head, data } : undefined;
}
