// Reading and writing the temporary session files behind the browser's back: what a test checks on
// disk after a UI action, and what "another process" appends while the page is open.
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { SessionManager, type AssistantContentBlock } from '@canopy/session-core';
import { testUsage } from '../../packages/session-core/test/messages';

export interface FileLine {
  type: string;
  id?: string;
  parentId?: string | null;
  [key: string]: unknown;
}

/** Every complete line of a session file, parsed. */
export function readLines(path: string): FileLine[] {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  // A trailing "" after the final newline is not a line.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => JSON.parse(line) as FileLine);
}

export function fileBytes(path: string): Buffer {
  return readFileSync(path);
}

/** A session file and its bytes at one moment, to check later what was written to it since. */
export interface WatchedFile {
  path: string;
  before: Buffer;
  /** The file holds exactly the bytes it held at that moment. */
  unchanged(): boolean;
}

export function watchFile(path: string): WatchedFile {
  const before = fileBytes(path);
  return { path, before, unchanged: () => fileBytes(path).equals(before) };
}

export function fileSize(path: string): number {
  return statSync(path).size;
}

/** Appends one JSON line in `pieces` separate writes with a pause between them, as a slow writer would. */
export async function appendInPieces(
  path: string,
  line: object,
  pieces: number,
  pauseMs: number,
): Promise<void> {
  const text = `${JSON.stringify(line)}\n`;
  const size = Math.ceil(text.length / pieces);
  for (let start = 0; start < text.length; start += size) {
    appendFileSync(path, text.slice(start, start + size));
    if (start + size < text.length) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** A user message line as an agent writes it. */
export function userMessageLine(id: string, parentId: string | null, text: string, at: Date): FileLine {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: at.toISOString(),
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: at.getTime() },
  };
}

/** An assistant reply as an agent writes it. */
export function assistantReply(text: string, at: Date) {
  return assistantReplyOf([{ type: 'text', text }], at.getTime());
}

/** An assistant reply with these content blocks (text, thinking, tool calls), stamped `timestamp`. */
export function assistantReplyOf(content: AssistantContentBlock[], timestamp: number) {
  return {
    role: 'assistant' as const,
    content,
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: testUsage(10, 5),
    stopReason: 'stop' as const,
    timestamp,
  };
}

/** An assistant reply line as an agent writes it. */
export function assistantMessageLine(id: string, parentId: string, text: string, at: Date): FileLine {
  return { type: 'message', id, parentId, timestamp: at.toISOString(), message: assistantReply(text, at) };
}

/**
 * Writes a session of `turns` user/assistant pairs (2 × turns entries) through session-core's
 * SessionManager: a main line that forks every `branchEvery` turns into a short side branch, so
 * the tree is both long and branched.
 */
export function largeSessionJsonl(
  turns: number,
  branchEvery = 50,
): { text: string; leafId: string; entries: number } {
  const manager = SessionManager.inMemory('/home/dev/projects/large');
  const reply = (text: string) => assistantReply(text, new Date());
  let entries = 0;
  for (let turn = 0; turn < turns; turn++) {
    const forkPoint = manager.getLeafId();
    manager.appendMessage({ role: 'user', content: `request number ${turn}`, timestamp: Date.now() });
    manager.appendMessage(reply(`answer number ${turn}`));
    entries += 2;
    if (forkPoint !== null && turn % branchEvery === branchEvery - 1 && turns - turn > 1) {
      // A side branch from the fork point, then back to the main line.
      const mainLeaf = manager.getLeafId()!;
      manager.branch(forkPoint);
      manager.appendMessage({ role: 'user', content: `side request ${turn}`, timestamp: Date.now() });
      manager.appendMessage(reply(`side answer ${turn}`));
      entries += 2;
      manager.branch(mainLeaf);
      turn++;
      manager.appendMessage({ role: 'user', content: `request number ${turn}`, timestamp: Date.now() });
      manager.appendMessage(reply(`answer number ${turn}`));
      entries += 2;
    }
  }
  return { text: manager.toJsonl(), leafId: manager.getLeafId()!, entries };
}
