import { describe, expect, it } from 'vitest';
import { SessionManager } from '../session-manager';
import type { SessionEntry, StoredMessage } from '../types';
import { fixtureFacts, TWO_APPROACHES_FILES } from '../../test/fixtures';
import { sharedPrefixLength } from './compare';
import { fileLens } from './file-lens';
import { FileReconstruction, patchReplacements, reconstructFiles, type FilesReport } from './files';
import { loadTwoApproaches, type TwoApproachesName } from '../../test/two-approaches';

const WRITERS: TwoApproachesName[] = ['two-approaches-pi16.jsonl', 'two-approaches-pi073.jsonl'];

function file(report: FilesReport, path: string) {
  const found = report.files.find((f) => f.path === path);
  if (!found) throw new Error(`no report for ${path}`);
  return found;
}

/** The lines a net hunk leaves in the file (kept and added), joined. */
function newSide(lines: { kind: string; text: string }[]): string {
  return lines
    .filter((l) => l.kind !== '-')
    .map((l) => `${l.text}\n`)
    .join('');
}

describe.each(WRITERS)('file reconstruction on %s', (name) => {
  const { ids, path } = loadTwoApproaches(name);
  const a = path(ids.answerA as string);
  const b = path(ids.answerB as string);
  const from = sharedPrefixLength(a, b);
  const facts = fixtureFacts(name) as { httpAfterA: string; httpAfterB: string };

  it('a write sets the content: the whole file is known and added', () => {
    const config = file(reconstructFiles(a, { from }), 'src/config.ts');
    expect(config.startsFromWrite).toBe(true);
    expect(config.wholeKnown).toBe(true);
    expect(config.net).toMatchObject({ added: 4, removed: 0 });
    expect(config.ops).toHaveLength(1);
    expect(config.ops[0]).toMatchObject({ kind: 'write', entryId: ids.writeConfig, added: 4, removed: 0 });
  });

  it('an edit with several edits applies each; the net diff matches what pi wrote to the file', () => {
    const http = file(reconstructFiles(a, { from }), 'src/http.ts');
    expect(http.wholeKnown).toBe(false);
    expect(http.startsFromWrite).toBe(false);
    expect(http.ops).toHaveLength(1);
    expect(http.ops[0]).toMatchObject({ kind: 'edit', entryId: ids.editA, added: 4, removed: 2 });
    expect(http.net).toMatchObject({ added: 4, removed: 2 });
    // Each net hunk's resulting lines are a piece of the file pi's own edit produced.
    for (const hunk of http.net.hunks) expect(facts.httpAfterA).toContain(newSide(hunk.lines));
    // Each hunk names the tool call that made it.
    expect(http.net.hunks.every((h) => h.entryIds.includes(ids.editA as string))).toBe(true);
  });

  it('a failed edit is skipped and listed apart', () => {
    const report = reconstructFiles(a, { from });
    expect(report.failed).toEqual([
      {
        entryId: ids.failedEdit,
        resultId: ids.failedEditResult,
        tool: 'edit',
        toolCallId: expect.any(String),
        path: 'src/http.ts',
      },
    ]);
    expect(file(report, 'src/http.ts').ops.map((o) => o.entryId)).not.toContain(ids.failedEdit);
  });

  it('bash and calls whose arguments were not kept are unknown effects, never guessed', () => {
    const report = reconstructFiles(a, { from });
    const unknown = report.unknownEffects.map((u) => [u.entryId, u.tool, u.reason]);
    expect(unknown).toContainEqual([ids.bashA, 'bash', 'may-change-files']);
    if (name === 'two-approaches-pi16.jsonl') {
      expect(unknown).toContainEqual([ids.nestedCall, 'code', 'may-change-files']);
      expect(unknown).toContainEqual([ids.nestedResult, 'edit', 'arguments-not-kept']);
    }
    // Nothing was attributed to a file it did not name.
    expect(report.files.map((f) => f.path)).toEqual(['src/config.ts', 'src/http.ts']);
  });

  it('the legacy top-level oldText/newText edit applies; a file changed back is marked', () => {
    const report = reconstructFiles(b, { from });
    const http = file(report, 'src/http.ts');
    expect(http.ops[0]).toMatchObject({ entryId: ids.editB, added: 1, removed: 1 });
    for (const hunk of http.net.hunks) expect(facts.httpAfterB).toContain(newSide(hunk.lines));
    const util = file(report, 'src/util.ts');
    expect(util.ops.map((o) => o.entryId)).toEqual([ids.debugOn, ids.debugOff]);
    expect(util.changedBack).toBe(true);
    expect(util.net).toEqual({ added: 0, removed: 0, hunks: [] });
    expect(http.changedBack).toBe(false);
    expect(file(report, 'README.md').net.added).toBe(1);
  });

  it('the whole path from the root lists the same files (the read changes nothing)', () => {
    expect(reconstructFiles(a).files.map((f) => f.path)).toEqual(['src/config.ts', 'src/http.ts']);
  });

  it('the file lens shows each branch that touched a file', () => {
    const lens = fileLens(
      [
        { leafId: ids.answerA as string, path: a },
        { leafId: ids.answerB as string, path: b },
        { leafId: ids.plan as string, path: path(ids.plan as string) },
      ],
      'src/http.ts',
    );
    expect(lens.map((l) => l.leafId)).toEqual([ids.answerA, ids.answerB]);
    expect(lens[0]?.report.ops.map((o) => o.entryId)).toEqual([ids.editA]);
    expect(fileLens([{ leafId: 'x', path: a }], 'src/util.ts')).toEqual([]);
  });
});

describe('pi 1.6 results: details.patch', () => {
  it('is what the edit did, placed even when the arguments were not the exact text', () => {
    const { ids, path } = loadTwoApproaches('two-approaches-pi16.jsonl');
    const result = path(ids.editAResult as string).at(-1) as SessionEntry;
    const details = (result.message as { details: { patch: string } }).details;
    expect(typeof details.patch).toBe('string');
    const replacements = patchReplacements(details.patch);
    expect(replacements.length).toBeGreaterThan(0);
    let content: string = TWO_APPROACHES_FILES.http;
    for (const r of replacements) {
      expect(content).toContain(r.oldText);
      content = content.replace(r.oldText, r.newText);
    }
    expect(content).toBe((fixtureFacts('two-approaches-pi16.jsonl') as { httpAfterA: string }).httpAfterA);
  });
});

// oh-my-pi's edit forms, as oh-my-pi writes them (replace, patch, hashline), on a session-core session.
describe("oh-my-pi's edit forms", () => {
  function session(calls: { name: string; args: Record<string, unknown>; isError?: boolean }[]) {
    const s = SessionManager.inMemory();
    s.appendMessage({ role: 'user', content: 'go', timestamp: 1 } as StoredMessage);
    calls.forEach((call, i) => {
      s.appendMessage({
        role: 'assistant',
        content: [{ type: 'toolCall', id: `c${i}`, name: call.name, arguments: call.args }],
        api: 'x',
        provider: 'p',
        model: 'm',
        usage: {
          input: 0,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 0,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: 'toolUse',
        timestamp: 2 + i,
      } as StoredMessage);
      s.appendMessage({
        role: 'toolResult',
        toolCallId: `c${i}`,
        toolName: call.name,
        content: [{ type: 'text', text: 'ok' }],
        isError: call.isError === true,
        timestamp: 2 + i,
      } as StoredMessage);
    });
    return s.getBranch();
  }
  const base = 'one\ntwo\nthree\nfour\n';

  it('replace mode: old_text/new_text, `all` replaces every occurrence', () => {
    const path = session([
      { name: 'write', args: { path: 'f', content: 'a\nb\na\n' } },
      { name: 'edit', args: { path: 'f', old_text: 'a', new_text: 'c', all: true } },
    ]);
    const f = file(reconstructFiles(path), 'f');
    expect(f.ops[1]).toMatchObject({ kind: 'edit', added: 1, removed: 1 });
    expect(f.net.hunks.flatMap((h) => h.lines.filter((l) => l.kind === '+').map((l) => l.text))).toEqual([
      'c',
      'b',
      'c',
    ]);
  });

  it('a net line an edit changed inside names that edit, and the write that made the line', () => {
    const path = session([
      { name: 'write', args: { path: 'f', content: 'export const greet = () => "hi";\n' } },
      { name: 'edit', args: { path: 'f', edits: [{ oldText: '"hi"', newText: '"hello"' }] } },
    ]);
    const f = file(reconstructFiles(path), 'f');
    const [write, edit] = f.ops.map((o) => o.entryId);
    expect(f.net.hunks).toHaveLength(1);
    expect(f.net.hunks[0]!.entryIds).toEqual([write, edit]);
  });

  it('patch mode: create, update hunks, delete', () => {
    const path = session([
      { name: 'edit', args: { path: 'f', op: 'create', diff: base } },
      { name: 'edit', args: { path: 'f', op: 'update', diff: '@@\n one\n-two\n+TWO\n three\n' } },
      { name: 'edit', args: { path: 'g', op: 'update', diff: '@@ x\n-old\n+new\n' } },
      { name: 'edit', args: { path: 'h', op: 'delete' } },
    ]);
    const report = reconstructFiles(path);
    const f = file(report, 'f');
    expect(f.wholeKnown).toBe(true);
    expect(f.ops.map((o) => [o.kind, o.added, o.removed])).toEqual([
      ['write', 4, 0],
      ['edit', 1, 1],
    ]);
    expect(f.net.hunks[0]?.lines.filter((l) => l.kind === '+').map((l) => l.text)).toEqual([
      'one',
      'TWO',
      'three',
      'four',
    ]);
    expect(file(report, 'g').net).toMatchObject({ added: 1, removed: 1 });
    expect(file(report, 'h')).toMatchObject({ deleted: true, partlyUnknown: true });
  });

  it('hashline mode: applied on known content by line anchors, counted only on unknown content', () => {
    const path = session([
      { name: 'write', args: { path: 'f', content: base } },
      {
        name: 'edit',
        args: {
          path: 'f',
          edits: [
            { op: 'set', tag: '2#ab', content: 'TWO' },
            { op: 'append', after: '4#cd', content: ['five'] },
          ],
        },
      },
      {
        name: 'edit',
        args: { path: 'g', edits: [{ op: 'replace', first: '3#aa', last: '5#bb', content: 'x' }] },
      },
    ]);
    const report = reconstructFiles(path);
    const f = file(report, 'f');
    expect(f.ops[1]).toMatchObject({ kind: 'edit', added: 2, removed: 1 });
    expect(f.net.hunks.flatMap((h) => h.lines.filter((l) => l.kind === '+').map((l) => l.text))).toEqual([
      'one',
      'TWO',
      'three',
      'four',
      'five',
    ]);
    const g = file(report, 'g');
    expect(g).toMatchObject({ partlyUnknown: true, added: 1, removed: 3 });
    expect(g.ops[0]).toMatchObject({ unplaced: true });
  });

  it('an edit whose text is not in the written content marks the file partly unknown (changed outside)', () => {
    const path = session([
      { name: 'write', args: { path: 'f', content: base } },
      { name: 'bash', args: { command: 'sed -i s/two/2/ f' } },
      { name: 'edit', args: { path: 'f', edits: [{ oldText: '2', newText: 'deux' }] } },
    ]);
    const report = reconstructFiles(path);
    expect(file(report, 'f').partlyUnknown).toBe(true);
    expect(report.unknownEffects.map((u) => u.tool)).toEqual(['bash']);
  });

  it('a call without a result on the path is an unknown effect', () => {
    const path = session([{ name: 'write', args: { path: 'f', content: 'x\n' } }]);
    const reconstruction = new FileReconstruction();
    reconstruction.feed(path.slice(0, -1));
    expect(reconstruction.report()).toMatchObject({
      files: [],
      unknownEffects: [{ tool: 'write', reason: 'no-result', path: 'f' }],
    });
  });
});
