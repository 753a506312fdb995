// The bundled demo sessions: shown when no agent session folder exists, and used by the start command's
// terminal outline, the e2e tests and the docs. They are generated through session-core's SessionManager
// (never copied from fixtures), so they are always in the format session-core writes.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildDemoSessions, DEMO_FILE_NAMES } from './sessions';
import type { DemoSession } from './sessions';

export { DEMO_FILE_NAMES };
export type { DemoSession };

/**
 * The demo sessions as file names and contents: a branched pi session about fixing a CSV parser, a
 * session branched from it (header `parentSession` = the first file's name, or its absolute path in
 * `dir` when given), and an oh-my-pi session.
 */
export function demoSessions(options: { dir?: string } = {}): DemoSession[] {
  return buildDemoSessions(options);
}

/** Writes the demo sessions into `dir` (created if missing) and returns their absolute paths. */
export async function writeDemoSessions(dir: string): Promise<string[]> {
  const target = resolve(dir);
  await mkdir(target, { recursive: true });
  const paths: string[] = [];
  for (const session of demoSessions({ dir: target })) {
    const path = join(target, session.fileName);
    await writeFile(path, session.jsonl);
    paths.push(path);
  }
  return paths;
}
