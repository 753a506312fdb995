import { describe, expect, it } from 'vitest';
import {
  contentText,
  editorTextOf,
  estimateTokens,
  hasTextContent,
  normalizeRowText,
  userMessageText,
} from './text';
import type { AgentMessage, SessionEntry } from './types';

const entryBase = { id: 'e1', parentId: null, timestamp: '2025-01-01T00:00:00.000Z' };

describe('contentText', () => {
  it('returns a string content unchanged', () => {
    expect(contentText('hello\nworld')).toBe('hello\nworld');
  });

  it('concatenates text blocks with no separator and ignores images and other blocks', () => {
    const content = [
      { type: 'text', text: 'a' },
      { type: 'image', data: 'xx', mimeType: 'image/png' },
      { type: 'thinking', thinking: 'hidden' },
      { type: 'text', text: 'b' },
    ];
    expect(contentText(content)).toBe('ab');
  });

  it('joins text blocks with the given separator', () => {
    expect(
      contentText(
        [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        { separator: '\n' },
      ),
    ).toBe('a\nb');
  });

  it('cuts string and block content to maxLength', () => {
    expect(contentText('abcdef', { maxLength: 3 })).toBe('abc');
    expect(
      contentText(
        [
          { type: 'text', text: 'ab' },
          { type: 'text', text: 'cdef' },
        ],
        { maxLength: 3 },
      ),
    ).toBe('abc');
    expect(contentText('ab', { maxLength: 3 })).toBe('ab');
  });

  it('returns "" for malformed content without throwing', () => {
    expect(contentText(undefined)).toBe('');
    expect(contentText(null)).toBe('');
    expect(contentText(42)).toBe('');
    expect(contentText({ type: 'text', text: 'not an array' })).toBe('');
    expect(
      contentText([
        null,
        5,
        'str',
        { type: 'text' },
        { type: 'text', text: 7 },
        { type: 'text', text: 'ok' },
      ]),
    ).toBe('ok');
  });
});

describe('hasTextContent', () => {
  it('is true only when some text is not whitespace', () => {
    expect(hasTextContent('  x ')).toBe(true);
    expect(hasTextContent('  \n ')).toBe(false);
    expect(
      hasTextContent([
        { type: 'image', data: '', mimeType: 'image/png' },
        { type: 'text', text: ' ' },
      ]),
    ).toBe(false);
    expect(hasTextContent([{ type: 'text', text: ' y' }])).toBe(true);
    expect(hasTextContent(undefined)).toBe(false);
  });
});

describe('normalizeRowText', () => {
  it('turns newlines, carriage returns and tabs into spaces and trims', () => {
    expect(normalizeRowText('\n a\r\nb\tc \t')).toBe('a  b c');
  });
});

describe('userMessageText', () => {
  it('extracts user text and gives "" for other roles', () => {
    expect(userMessageText({ role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 })).toBe(
      'hi',
    );
    expect(userMessageText({ role: 'assistant', content: [{ type: 'text', text: 'hi' }] })).toBe('');
    expect(userMessageText(null)).toBe('');
  });
});

describe('editorTextOf', () => {
  it('gives the text of a user message entry', () => {
    const entry: SessionEntry = {
      ...entryBase,
      type: 'message',
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: 'y' },
        ],
        timestamp: 1,
      },
    };
    expect(editorTextOf(entry)).toBe('xy');
  });

  it('gives the content text of a custom_message entry', () => {
    const entry: SessionEntry = {
      ...entryBase,
      type: 'custom_message',
      customType: 'k',
      content: 'note',
      display: true,
    };
    expect(editorTextOf(entry)).toBe('note');
  });

  it('gives undefined for assistant messages and non-message entries', () => {
    const assistant: SessionEntry = {
      ...entryBase,
      type: 'message',
      message: { role: 'assistant', content: [{ type: 'text', text: 'a' }] } as never,
    };
    expect(editorTextOf(assistant)).toBeUndefined();
    expect(editorTextOf({ ...entryBase, type: 'label', targetId: 'x', label: 'l' })).toBeUndefined();
  });
});

describe('estimateTokens', () => {
  it('counts user text as ceil(chars / 4)', () => {
    expect(estimateTokens({ role: 'user', content: 'abcde', timestamp: 0 })).toBe(2);
    expect(estimateTokens({ role: 'user', content: [{ type: 'text', text: 'abcd' }], timestamp: 0 })).toBe(1);
  });

  it('counts assistant text, thinking, tool name and JSON arguments', () => {
    const message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'abc' },
        { type: 'thinking', thinking: 'de' },
        { type: 'toolCall', id: 't', name: 'read', arguments: { path: 'a' } },
      ],
    } as unknown as AgentMessage;
    // 3 + 2 + 4 + '{"path":"a"}'.length (12) = 21 → 6
    expect(estimateTokens(message)).toBe(6);
  });

  it('counts custom and toolResult text plus 4800 characters per image', () => {
    const image = { type: 'image', data: 'x', mimeType: 'image/png' };
    expect(
      estimateTokens({
        role: 'toolResult',
        toolCallId: 't',
        toolName: 'read',
        content: [{ type: 'text', text: 'abcd' }, image] as never,
        isError: false,
        timestamp: 0,
      }),
    ).toBe(1201);
    expect(
      estimateTokens({ role: 'custom', customType: 'k', content: 'abcdefgh', display: true, timestamp: 0 }),
    ).toBe(2);
  });

  it('counts bash command plus output and summary text', () => {
    expect(
      estimateTokens({
        role: 'bashExecution',
        command: 'ls',
        output: 'abc',
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: 0,
      }),
    ).toBe(2);
    expect(estimateTokens({ role: 'branchSummary', summary: 'x'.repeat(9), fromId: 'a', timestamp: 0 })).toBe(
      3,
    );
    expect(
      estimateTokens({ role: 'compactionSummary', summary: 'x'.repeat(8), tokensBefore: 1, timestamp: 0 }),
    ).toBe(2);
  });

  it("counts a pi user message's images as pi 1.x does, and only its text in an oh-my-pi file", () => {
    const image = { type: 'image' as const, data: 'x', mimeType: 'image/png' };
    const message = {
      role: 'user' as const,
      content: [{ type: 'text' as const, text: 'abcd' }, image],
      timestamp: 0,
    };
    expect(estimateTokens(message)).toBe(1201);
    expect(estimateTokens(message, 'omp')).toBe(1);
  });

  it("counts a system message's text, sections and added tools (pi 1.x)", () => {
    const system = {
      role: 'system' as const,
      content: 'abcd',
      sections: { cwd: 'efgh', gone: null },
      toolsAdded: [{ name: 'r' }],
      timestamp: 0,
    };
    // 4 + 4 + '[{"name":"r"}]'.length (14) = 22 → 6
    expect(estimateTokens(system)).toBe(6);
    expect(estimateTokens(system, 'omp')).toBe(0);
  });

  it('counts unknown roles and malformed messages as 0', () => {
    expect(estimateTokens({ role: 'developer', content: 'abcdefgh' })).toBe(0);
    expect(estimateTokens({ role: 'assistant', content: 'not blocks' } as unknown as AgentMessage)).toBe(0);
    expect(estimateTokens(null as unknown as AgentMessage)).toBe(0);
  });
});
