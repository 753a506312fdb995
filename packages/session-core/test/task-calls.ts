// oh-my-pi `task` tool calls and results as its task tool writes them (docs/archive-and-family.md#subagent-lanes),
// shared by the session-core and server tests of subagent call sites.
import type { AssistantMessage, ToolResultMessage } from '../src/types';
import { assistantMsg } from './messages';

export type TaskArguments =
  | { name?: string; agent: string; task: string }
  | { context: string; tasks: { name?: string; agent: string; task: string }[] };

/** An assistant reply that calls the `task` tool (one call, `callId`). */
export function taskCallMsg(callId: string, args: TaskArguments, timestamp = 0): AssistantMessage {
  return assistantMsg('', {
    content: [{ type: 'toolCall', id: callId, name: 'task', arguments: args }],
    stopReason: 'toolUse',
    timestamp,
  });
}

/** The task tool's result for `callId`: one result per subagent id (`taskId` as older releases wrote it). */
export function taskResultMsg(
  callId: string,
  ids: string[],
  options: { key?: 'id' | 'taskId'; timestamp?: number } = {},
): ToolResultMessage {
  const key = options.key ?? 'id';
  return {
    role: 'toolResult',
    toolCallId: callId,
    toolName: 'task',
    content: [{ type: 'text', text: ids.map((id) => `${id}: done`).join('\n') }],
    details: {
      projectAgentsDir: null,
      totalDurationMs: 10,
      results: ids.map((id) => ({ [key]: id, agent: 'explore', task: 'look', exitCode: 0 })),
    },
    isError: false,
    timestamp: options.timestamp ?? 0,
  };
}
