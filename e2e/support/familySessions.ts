// An oh-my-pi session family written as oh-my-pi lays it out, for the lane tests and screenshots
// (docs/archive-and-family.md#in-the-page): a parent `<stamp>_<id>.jsonl` whose assistant starts
// agents with a `task` tool call (its result naming them in `details.results`), each agent's
// transcript in the parent's folder (`<stamp>_<id>/<AgentId>.jsonl`, opening with `session_init`),
// and optionally a fork of the parent (`forkFrom`: a new file naming the parent's session id, its
// entries copied with their ids up to the fork point).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OmpSessionBuilder, titleSlotLine } from '../../packages/session-core/test/omp-builder';

const STAMP = '2026-09-01T10-00-00-000Z';
export const PARENT_ID = '0199a000-0000-7000-8000-0000000000a1';
/** The parent's file name, without `.jsonl` (its folder's name too). */
export const PARENT = `${STAMP}_${PARENT_ID}`;

export interface SubagentFamily {
  /** The parent's assistant entry holding the `task` tool call. */
  callEntry: string;
  /** The first agent's (AuthScan's) entries, root to leaf. */
  agentEntries: string[];
  /** The parent's entry the fork was made at (when asked for). */
  forkEntry: string | null;
}

export interface SubagentFamilyOptions {
  /** More agents started by the same call (their ids), beside AuthScan. */
  moreAgents?: string[];
  /** Steps of AuthScan's run after its first reply (default 2). */
  agentSteps?: number;
  /** Also write a fork of the parent made at its first user message. */
  fork?: boolean;
}

export function writeSubagentFamily(
  sessionsDir: string,
  options: SubagentFamilyOptions = {},
): SubagentFamily {
  const agents = ['AuthScan', ...(options.moreAgents ?? [])];
  const parent = new OmpSessionBuilder({ title: 'Harden the login', id: PARENT_ID });
  const forkEntry = parent.user('Check the login flow for auth bugs');
  const callEntry = parent.assistant(
    [
      { type: 'text', text: 'I will start scouts for this.' },
      parent.toolCall('call-auth', 'task', {
        agent: 'scout',
        tasks: agents.map((id) => ({ id, description: `Run ${id}`, assignment: `Do ${id}` })),
      }),
    ],
    { stopReason: 'toolUse' },
  );
  parent.message({
    role: 'toolResult',
    toolCallId: 'call-auth',
    toolName: 'task',
    content: [{ type: 'text', text: agents.map((id) => `${id}: done`).join('\n') }],
    details: { results: agents.map((id) => ({ id, agent: 'scout', exitCode: 0, output: 'done' })) },
    isError: false,
  });
  parent.assistant('The scout found one missing check; fixing it.');
  parent.user('Also add a test for the expiry');
  parent.assistant('Added tests/auth-expiry.test.ts.');
  writeFileSync(join(sessionsDir, `${PARENT}.jsonl`), parent.text());

  const folder = join(sessionsDir, PARENT);
  mkdirSync(folder, { recursive: true });
  let agentEntries: string[] = [];
  agents.forEach((id, i) => {
    const agent = new OmpSessionBuilder({
      title: id,
      id: `0199a000-0000-7000-8000-0000000000b${i}`,
      start: Date.UTC(2026, 8, 1, 10, 0, 5),
    });
    const entries = [
      agent.add('session_init', { systemPrompt: 'You are a scout.', task: `Do ${id}`, tools: ['read'] }),
      agent.user(`Do ${id}`),
    ];
    if (i === 0) {
      entries.push(agent.assistant('Reading src/auth.ts'));
      for (let step = 0; step < (options.agentSteps ?? 2) - 1; step++) {
        entries.push(
          agent.assistant([agent.toolCall(`read-${step}`, 'read', { path: `src/auth/${step}.ts` })], {
            stopReason: 'toolUse',
          }),
        );
        entries.push(agent.toolResult(`read-${step}`, 'read', `export function check${step}() {}`));
      }
      entries.push(agent.assistant('Found it: the token expiry is never checked.'));
      agentEntries = entries;
    } else entries.push(agent.assistant(`${id} finished: nothing to report.`));
    writeFileSync(join(folder, `${id}.jsonl`), agent.text());
  });

  if (options.fork) {
    // oh-my-pi's forkFrom: the path to the fork point copied with its ids, then the fork's own turn.
    const copied = parent.lines.slice(
      0,
      parent.lines.findIndex((line) => line.includes(`"id":"${forkEntry}"`)) + 1,
    );
    const at = Date.UTC(2026, 8, 1, 11, 0, 0);
    const header = {
      type: 'session',
      version: 3,
      id: '0199a000-0000-7000-8000-0000000000c1',
      timestamp: new Date(at).toISOString(),
      cwd: '/work/project',
      parentSession: PARENT_ID,
    };
    const own = (id: string, parentId: string, message: object, second: number) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId,
        timestamp: new Date(at + second * 1000).toISOString(),
        message: { timestamp: at + second * 1000, ...message },
      });
    const lines = [
      titleSlotLine('Login, the OAuth way', new Date(at).toISOString(), 'user'),
      JSON.stringify(header),
      ...copied,
      own('f0000001', forkEntry, { role: 'user', content: [{ type: 'text', text: 'Try OAuth instead' }] }, 1),
    ];
    writeFileSync(
      join(sessionsDir, 'login-oauth.jsonl'),
      lines.map((line) => line.replace(/\n$/, '')).join('\n') + '\n',
    );
  }
  return { callEntry, agentEntries, forkEntry: options.fork ? forkEntry : null };
}
