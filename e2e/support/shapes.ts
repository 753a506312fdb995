// Sessions of particular shapes for the UI tests, written through session-core's SessionManager:
// a long first message, a damaged file, a deep tree, a long branch beside a short one. Each
// returns the JSONL text and the ids the tests need.
import { SessionManager } from '@canopy/session-core';
import { assistantMessageLine, assistantReply } from './sessionFile';

const CWD = '/home/dev/projects/shapes';

function reply(manager: SessionManager, text: string): string {
  return manager.appendMessage(assistantReply(text, new Date()));
}

function ask(manager: SessionManager, text: string): string {
  return manager.appendMessage({ role: 'user', content: text, timestamp: Date.now() });
}

/** Two turns whose first user message (and so the session's name in the list) is `firstMessage`. */
export function namedByFirstMessage(firstMessage: string): { text: string; leafId: string } {
  const manager = SessionManager.inMemory(CWD);
  ask(manager, firstMessage);
  reply(manager, 'Understood.');
  ask(manager, 'And the second step?');
  const leafId = reply(manager, 'Done.');
  return { text: manager.toJsonl(), leafId };
}

/**
 * A small branched session: a root question, two answers to it (A then B, the leaf on B's
 * follow-up). `ids` names every entry.
 */
export function smallBranched(firstMessage = 'Start the task'): {
  text: string;
  ids: Record<string, string>;
} {
  const manager = SessionManager.inMemory(CWD);
  const root = ask(manager, firstMessage);
  const answer = reply(manager, 'Which approach?');
  const tryA = ask(manager, 'Try approach A');
  const doneA = reply(manager, 'Approach A works partly');
  manager.branch(answer);
  const tryB = ask(manager, 'Try approach B');
  const doneB = reply(manager, 'Approach B works');
  return { text: manager.toJsonl(), ids: { root, answer, tryA, doneA, tryB, doneB } };
}

/**
 * A session with damage: a line that is not JSON, an entry whose parent is missing (an orphan,
 * shown as an extra root), a two-entry parent cycle and a duplicate id, after a valid small tree.
 * `orphanId` is the orphan; the cycle's members are cyc1e00a and cyc1e00b (the leaf); `mainIds`
 * are the entries of the valid tree.
 */
export function damaged(): { text: string; leafId: string; orphanId: string; mainIds: string[] } {
  const small = smallBranched();
  const at = new Date('2026-01-01T00:00:00Z');
  const orphan = assistantMessageLine('0rphan01', 'gone0001', 'An answer whose question is lost', at);
  const cycleA = assistantMessageLine('cyc1e00a', 'cyc1e00b', 'Cycle member A', at);
  const cycleB = assistantMessageLine('cyc1e00b', 'cyc1e00a', 'Cycle member B', at);
  const duplicate = assistantMessageLine(
    small.ids.doneA!,
    small.ids.tryA!,
    'A second line with an old id',
    at,
  );
  const lines = [
    small.text.trimEnd(),
    '{"type": "message", this is not JSON',
    JSON.stringify(orphan),
    JSON.stringify(cycleA),
    JSON.stringify(cycleB),
    JSON.stringify(duplicate),
  ];
  // The last entry read is the leaf: the second member of the cycle.
  return {
    text: `${lines.join('\n')}\n`,
    leafId: cycleB.id!,
    orphanId: orphan.id!,
    mainIds: Object.values(small.ids),
  };
}

/** One line that cannot be read, after a valid session: exactly one issue. */
export function oneBadLine(): string {
  return `${smallBranched().text}{"broken": \n`;
}

/**
 * A tree `depth` branch points deep: at each level a user message gets a short side answer and the
 * main answer that goes on, so the outline's indentation grows by one level per branch point.
 */
export function deepBranches(depth: number): { text: string; deepestId: string } {
  const manager = SessionManager.inMemory(CWD);
  let question = ask(manager, 'level 0 question');
  let deepest = question;
  for (let level = 0; level < depth; level++) {
    reply(manager, `side answer at level ${level}`);
    manager.branch(question);
    reply(manager, `main answer at level ${level}`);
    question = ask(manager, `level ${level + 1} question with a fairly long text to read in the outline`);
    deepest = question;
  }
  return { text: manager.toJsonl(), deepestId: deepest };
}

/**
 * A trunk of `trunkTurns` turns, then two branches from its last answer: a short one (written
 * first) and the active one of `activeTurns` turns. The outline lists the active branch first, so
 * jumping into the short one moves its rows up by the active branch's length.
 */
export function trunkWithTwoBranches(
  trunkTurns: number,
  activeTurns: number,
): { text: string; shortUserId: string; shortReplyId: string; leafId: string } {
  const manager = SessionManager.inMemory(CWD);
  let answer = '';
  for (let turn = 0; turn < trunkTurns; turn++) {
    ask(manager, `trunk step ${turn}`);
    answer = reply(manager, `trunk answer ${turn}`);
  }
  const shortUserId = ask(manager, 'Try the short way');
  const shortReplyId = reply(manager, 'The short way is done');
  manager.branch(answer);
  let leafId = answer;
  for (let turn = 0; turn < activeTurns; turn++) {
    ask(manager, `long way step ${turn}`);
    leafId = reply(manager, `long way answer ${turn}`);
  }
  return { text: manager.toJsonl(), shortUserId, shortReplyId, leafId };
}

/**
 * A wide fan: `branches` user messages answering one root answer, each with a reply, written left
 * to right; the leaf is the rightmost reply. `firstReplyId` is the leftmost reply, far from it.
 */
export function fan(branches: number): { text: string; leafId: string; firstReplyId: string } {
  const manager = SessionManager.inMemory(CWD);
  ask(manager, 'Start the task');
  const answer = reply(manager, 'Many ways to go');
  let firstReplyId = '';
  let leafId = '';
  for (let i = 0; i < branches; i++) {
    manager.branch(answer);
    ask(manager, `way ${i}`);
    leafId = reply(manager, `way ${i} is done`);
    if (i === 0) firstReplyId = leafId;
  }
  return { text: manager.toJsonl(), leafId, firstReplyId };
}

/**
 * A fork inside a fork: a question answered with B, then again with A, and A asked two follow-ups
 * (the second, written last, holds the leaf). A jump to B makes A the last of the question's
 * answers, which turns A's line over in the gutter of every row below A: the rows of A's first
 * follow-up keep their own marks, so only their gutters change.
 */
export function forkInFork(): {
  text: string;
  ids: Record<'question' | 'b' | 'a' | 'sideAnswer' | 'leaf', string>;
} {
  const manager = SessionManager.inMemory(CWD);
  const question = ask(manager, 'Which way?');
  const b = reply(manager, 'Way B');
  manager.branch(question);
  const a = reply(manager, 'Way A');
  ask(manager, 'A, then the side step?');
  const sideAnswer = reply(manager, 'The side step is done');
  manager.branch(a);
  ask(manager, 'A, then the main step?');
  const leaf = reply(manager, 'The main step is done');
  return { text: manager.toJsonl(), ids: { question, b, a, sideAnswer, leaf } };
}
