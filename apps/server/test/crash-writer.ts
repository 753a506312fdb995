// The child process of crash-repair.test.ts: Canopy appending a 1 MB message to a session, with a
// test seam in place of its one write() that writes the first `split` bytes, says so on stdout, and
// then waits on stdin, which the test never writes to: the test kills this process (SIGKILL) there.
// Run as: node --import tsx crash-writer.ts <root> <stateDir> <file name> <split: a byte count, a
// negative count of bytes left out at the end, or `whole`>.
import fs from 'node:fs';
import { buildApp } from '../src/app';

const [root, stateDir, name, split] = process.argv.slice(2) as [string, string, string, string];
const TOKEN = 'crash-token-0123456789abcdef';

const app = await buildApp({
  roots: [root],
  stateDir,
  token: TOKEN,
  port: 4999,
  quietWindowMs: 0,
  appendWrite: (fd, data) => {
    // A negative split leaves that many bytes out at the end.
    const count =
      split === 'whole' ? data.length : Number(split) < 0 ? data.length + Number(split) : Number(split);
    let written = 0;
    while (written < count) written += fs.writeSync(fd, data, written, count - written);
    process.stdout.write(`paused ${count} ${data.length}\n`);
    fs.readSync(0, Buffer.alloc(1)); // blocks until the test kills this process
    return written;
  },
});
const headers = { host: '127.0.0.1:4999', authorization: `Bearer ${TOKEN}` };
const list = await app.inject({ method: 'GET', url: '/api/sessions', headers });
const session = (list.json() as { sessions: Array<{ id: string; path: string }> }).sessions.find(
  (item) => item.path === name,
);
if (!session) throw new Error(`${name} is not listed`);
const answer = await app.inject({
  method: 'POST',
  url: `/api/sessions/${session.id}/messages`,
  headers,
  payload: { text: `a long message ${'x'.repeat(999_000)} end` },
});
process.stdout.write(
  `the write returned (${answer.statusCode} ${answer.body.slice(0, 300)}): the test should have killed this process\n`,
);
