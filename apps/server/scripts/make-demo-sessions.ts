// Writes the bundled demo sessions into a folder: `tsx apps/server/scripts/make-demo-sessions.ts <dir>`.
import { writeDemoSessions } from '../src/files/demo';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: tsx apps/server/scripts/make-demo-sessions.ts <dir>\n');
  process.exit(2);
}
const paths = writeDemoSessions(dir);
for (const path of paths) process.stdout.write(`${path}\n`);
