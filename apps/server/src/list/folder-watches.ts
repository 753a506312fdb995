// Watching the session folders for new, grown and removed files.
//
// Node's `fs.watch(dir, { recursive: true })` is native on macOS and Windows. On Linux it is built
// in JavaScript on one inotify watch per FILE: every event in a folder reads that folder again
// synchronously (readdirSync), stats and watches each name it has not seen, and a removal walks
// every watched path. oh-my-pi keeps a folder of tool outputs beside each session; a program
// renaming files in one of them made every request of the server wait behind those synchronous
// passes (docs/safety.md#confinement). So on Linux Canopy watches FOLDERS only, one non-recursive
// watch each: an event costs one callback with the name that changed, and the folders to watch are
// the ones the listing walked (a new folder is looked at when its parent's event names it).
import path from 'node:path';
import { watchPath, type Watcher } from '../files/files';

/** Folder watches kept at most; past that, the periodic rescan finds what changed. */
export const MAX_FOLDER_WATCHES = 8192;

/** Does this platform's `fs.watch` watch a tree natively (without a pass over it per event)? */
export const NATIVE_RECURSIVE_WATCH = process.platform === 'darwin' || process.platform === 'win32';

export class FolderWatches {
  private readonly watched = new Map<string, Watcher>();
  private closed = false;

  constructor(
    /** Told the path that changed (a name in a watched folder), or undefined when unknown. */
    private readonly onChange: (changed: string | undefined) => void,
    private readonly max = MAX_FOLDER_WATCHES,
  ) {}

  /** How many folders are watched. */
  get size(): number {
    return this.watched.size;
  }

  /** Watches each of `folders` not watched yet (up to the cap). */
  add(folders: Iterable<string>): void {
    for (const folder of folders) {
      if (this.closed || this.watched.size >= this.max) return;
      if (this.watched.has(folder)) continue;
      this.watched.set(folder, watchPath(folder, false, this.onChange));
    }
  }

  /** After a whole listing: watches exactly `folders` (those no longer there are let go). */
  sync(folders: ReadonlySet<string>): void {
    for (const [folder, watcher] of this.watched) {
      if (!folders.has(folder)) {
        watcher.close();
        this.watched.delete(folder);
      }
    }
    this.add(folders);
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watched.values()) watcher.close();
    this.watched.clear();
  }
}

/**
 * Names in a watched folder that are never a session file nor a folder of sessions: oh-my-pi's tool
 * outputs (`N.<tool>.log`), lock files and their gates (`.<name>.jsonl.lock`, `….lock.os`), a writer's
 * temporary and backup files, and hidden names (a hidden folder is read by the periodic rescan). An
 * event naming one of them is ignored without a look at the disk.
 */
export function ignoredWatchName(changed: string): boolean {
  const name = path.basename(changed);
  if (name.startsWith('.')) return true;
  return /\.(log|lock|os|tmp|bak)$/.test(name);
}
