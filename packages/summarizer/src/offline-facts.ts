// What the offline summariser knows about a run of entries, gathered in one chronological pass:
// the user's requests, how each turn ended, the tool calls grouped by tool and file, the errors,
// and the context that earlier summaries and extensions left behind.
import { BRANCH_SUMMARY_PREAMBLE, contentText, isRecord, type SessionEntry } from '@canopy/session-core';

/** How a turn (a user request and the assistant messages after it) ended. */
export type TurnEnd = 'answered' | 'unanswered' | 'aborted' | 'failed' | 'tool-use';

export interface Turn {
  /** Undefined when the entries start in the middle of a turn. */
  request?: string;
  /** The last assistant text of the turn. */
  conclusion?: string;
  end: TurnEnd;
}

export interface ToolGroup {
  tool: string;
  /** The `path` argument; calls without one are grouped by tool alone. */
  path?: string;
  count: number;
  /** Distinct short argument forms of path-less calls (a bash command, a search pattern), first seen first. */
  samples: string[];
  /** Whether there were more distinct argument forms than `samples` holds. */
  moreSamples: boolean;
}

export interface OfflineFacts {
  turns: Turn[];
  toolGroups: ToolGroup[];
  errors: string[];
  /** Sentences of the requests that state a constraint or a preference ("must", "don't", "prefer", …). */
  constraints: string[];
  decisions: string[];
  context: string[];
}

const MAX_SAMPLES = 3;

/** One line of text: whitespace runs collapsed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function firstLine(text: string): string {
  return oneLine(text.split('\n').find((line) => line.trim() !== '') ?? '');
}

/** A user message's text, with a note of the images it carried (their content is not summarised). */
function requestText(content: unknown): string {
  const images = Array.isArray(content)
    ? content.filter((block: unknown) => isRecord(block) && block.type === 'image').length
    : 0;
  const note = images === 0 ? '' : ` [${images} ${images === 1 ? 'image' : 'images'}]`;
  return (oneLine(contentText(content)) + note).trim();
}

const CONSTRAINT_WORDS =
  /\b(must|mustn't|should|shouldn't|never|always|don't|do not|avoid|prefer|preferably|without|instead of|keep|make sure)\b/i;

/** The sentences of a request that say how the work must (not) be done. */
function constraintSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map(oneLine)
    .filter((sentence) => sentence && CONSTRAINT_WORDS.test(sentence));
}

function shortArguments(args: Record<string, unknown>): string {
  for (const key of ['command', 'pattern', 'query', 'url', 'file_path']) {
    if (typeof args[key] === 'string') return oneLine(args[key]);
  }
  const json = JSON.stringify(args);
  return json === '{}' ? '' : json;
}

/** A nested summary's own text, without the preamble and file lists that every summary carries. */
function summaryGist(summary: string): string {
  const body = summary.startsWith(BRANCH_SUMMARY_PREAMBLE)
    ? summary.slice(BRANCH_SUMMARY_PREAMBLE.length)
    : summary;
  return oneLine(body.replace(/<(read|modified)-files>[\s\S]*?<\/\1-files>/g, ''));
}

export function gatherFacts(entries: readonly SessionEntry[]): OfflineFacts {
  const turns: Turn[] = [];
  const groups = new Map<string, ToolGroup>();
  const callDescriptions = new Map<string, string>();
  const errors: string[] = [];
  const constraints = new Set<string>();
  const decisions: string[] = [];
  const context: string[] = [];
  let turn: Turn | undefined;

  const currentTurn = (): Turn => {
    if (!turn) {
      turn = { end: 'unanswered' };
      turns.push(turn);
    }
    return turn;
  };

  const addToolCall = (block: Record<string, unknown>): void => {
    const tool = typeof block.name === 'string' ? block.name : '(unnamed tool)';
    const args = isRecord(block.arguments) ? block.arguments : {};
    const path = typeof args.path === 'string' && args.path ? args.path : undefined;
    const key = path === undefined ? `${tool}\u0000` : `${tool}\u0000${path}`;
    let group = groups.get(key);
    if (!group) {
      group = { tool, path, count: 0, samples: [], moreSamples: false };
      groups.set(key, group);
    }
    group.count++;
    const sample = path === undefined ? shortArguments(args) : '';
    if (sample && !group.samples.includes(sample)) {
      if (group.samples.length < MAX_SAMPLES) group.samples.push(sample);
      else group.moreSamples = true;
    }
    if (typeof block.id === 'string') {
      callDescriptions.set(block.id, `\`${tool}\` ${path ?? sample}`.trimEnd());
    }
  };

  for (const entry of entries) {
    switch (entry.type) {
      case 'message': {
        const message = entry.message;
        if (!isRecord(message)) break;
        switch (message.role) {
          case 'user': {
            turn = { request: requestText(message.content), end: 'unanswered' };
            turns.push(turn);
            for (const sentence of constraintSentences(contentText(message.content)))
              constraints.add(sentence);
            break;
          }
          case 'assistant': {
            const current = currentTurn();
            const blocks: unknown[] = Array.isArray(message.content) ? message.content : [];
            const texts: string[] = [];
            for (const block of blocks) {
              if (!isRecord(block)) continue;
              if (block.type === 'toolCall') addToolCall(block);
              else if (block.type === 'text' && typeof block.text === 'string' && block.text.trim())
                texts.push(block.text);
            }
            if (texts.length > 0) current.conclusion = oneLine(texts.join('\n'));
            if (message.stopReason === 'aborted') {
              current.end = 'aborted';
              errors.push(`Turn aborted${current.request ? ` while working on: ${current.request}` : ''}`);
            } else if (message.stopReason === 'error') {
              current.end = 'failed';
              const reason = typeof message.errorMessage === 'string' ? firstLine(message.errorMessage) : '';
              errors.push(`Model error${reason ? `: ${reason}` : ''}`);
            } else if (message.stopReason === 'toolUse') {
              current.end = 'tool-use';
            } else {
              current.end = 'answered';
            }
            break;
          }
          case 'toolResult': {
            if (message.isError !== true) break;
            const described =
              (typeof message.toolCallId === 'string' && callDescriptions.get(message.toolCallId)) ||
              `\`${String(message.toolName ?? 'tool')}\``;
            const reason = firstLine(contentText(message.content));
            errors.push(`${described} failed${reason ? `: ${reason}` : ''}`);
            break;
          }
          case 'bashExecution': {
            const command = oneLine(String(message.command ?? ''));
            addToolCall({ name: '!', arguments: { command } });
            if (message.cancelled === true) errors.push(`\`${command}\` was cancelled`);
            else if (typeof message.exitCode === 'number' && message.exitCode !== 0)
              errors.push(`\`${command}\` exited with code ${message.exitCode}`);
            break;
          }
          case 'custom':
          case 'hookMessage': {
            const text = oneLine(contentText(message.content));
            if (text) context.push(`${String(message.customType ?? 'custom')}: ${text}`);
            break;
          }
        }
        break;
      }
      case 'custom_message': {
        const text = oneLine(contentText(entry.content));
        if (text) context.push(`${String(entry.customType ?? 'custom')}: ${text}`);
        break;
      }
      case 'branch_summary': {
        const gist = typeof entry.summary === 'string' ? summaryGist(entry.summary) : '';
        if (gist) context.push(`Earlier branch summary: ${gist}`);
        break;
      }
      case 'compaction': {
        const gist = typeof entry.summary === 'string' ? oneLine(entry.summary) : '';
        if (gist) context.push(`Earlier compacted context: ${gist}`);
        break;
      }
      case 'model_change': {
        const model =
          typeof entry.model === 'string'
            ? entry.model
            : [entry.provider, entry.modelId].filter((part) => typeof part === 'string').join('/');
        if (model) decisions.push(`Switched the model to ${model}`);
        break;
      }
      case 'thinking_level_change': {
        if (typeof entry.thinkingLevel === 'string')
          decisions.push(`Set the thinking level to ${entry.thinkingLevel}`);
        break;
      }
    }
  }
  return {
    turns,
    toolGroups: [...groups.values()],
    errors,
    constraints: [...constraints],
    decisions,
    context,
  };
}
