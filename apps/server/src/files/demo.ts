// Writes the bundled demo sessions (@canopy/demo) into a folder through the file helpers, so that
// files/ stays the only part of the server that touches the file system.
import path from 'node:path';
import { demoSessions } from '@canopy/demo';
import { createNewFileSync, ensureDirSync } from './files';

/**
 * Writes the demo sessions into `dir` (created if missing; an existing file is never overwritten) and
 * returns their absolute paths. The branched session's header names the first file by its path there.
 */
export function writeDemoSessions(dir: string): string[] {
  const target = path.resolve(dir);
  ensureDirSync(target);
  const pathOf = (fileName: string) => path.join(target, fileName);
  return demoSessions({ pathOf }).map((session) => {
    const file = pathOf(session.fileName);
    createNewFileSync(file, session.jsonl);
    return file;
  });
}
