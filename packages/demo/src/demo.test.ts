// The bundled demo sessions: they load in session-core without a single issue, show every feature the
// UI has to present (branches, labels set and cleared, a branch summary, a compaction, model and thinking
// changes, a tool-only assistant, an aborted turn, lineage, the oh-my-pi dialect), are deterministic
// apart from ids, and open in the reference package with the same tree and contexts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionManager } from '@canopy/session-core';
import type { AssistantMessage, LabelEntry, SessionEntry } from '@canopy/session-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { asApi, openReference } from '../../session-core/test/interop/support/drivers';
import { expectSameSession } from '../../session-core/test/interop/support/expect-same';
import { makeTempDir, removeTempDir } from '../../session-core/test/interop/support/fixtures';
import { positionalIds, snapshot } from '../../session-core/test/interop/support/projection';
import { DEMO_FILE_NAMES, demoSessions } from './index';

let dir: string;

beforeAll(() => {
  dir = makeTempDir('demo');
});

afterAll(() => {
  removeTempDir(dir);
});

function load(fileName: string, sessions = demoSessions()): SessionManager {
  const session = sessions.find((candidate) => candidate.fileName === fileName);
  if (!session) throw new Error(`no demo session ${fileName}`);
  return SessionManager.fromJsonl(session.jsonl);
}

function byText(session: SessionManager, role: string, start: string): SessionEntry {
  const found = session.getEntries().find((entry) => {
    if (entry.type !== 'message') return false;
    const message = entry.message as { role: string; content?: unknown };
    if (message.role !== role) return false;
    const content = message.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((block: { text?: string }) => block.text ?? '').join('')
          : '';
    return text.startsWith(start);
  });
  if (!found) throw new Error(`no ${role} message starting with ${start}`);
  return found;
}

function resolvedLabels(session: SessionManager): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const entry of session.getEntries()) {
    const label = session.getLabel(entry.id);
    if (label !== undefined) labels[label] = entry.id;
  }
  return labels;
}

describe('demo sessions', () => {
  test('there are three sessions, each a version 3 file that loads in session-core with no issues', () => {
    const sessions = demoSessions();
    expect(sessions.map((session) => session.fileName)).toEqual([
      DEMO_FILE_NAMES.main,
      DEMO_FILE_NAMES.branched,
      DEMO_FILE_NAMES.omp,
    ]);
    for (const { jsonl } of sessions) {
      const session = SessionManager.fromJsonl(jsonl);
      expect(session.issues).toEqual([]);
      expect(session.version).toBe(3);
      expect(session.needsRewrite).toBe(false);
      expect(jsonl.endsWith('\n')).toBe(true);
    }
  });

  test('the main session is a branched bug-fix conversation with every kind of turning point', () => {
    const session = load(DEMO_FILE_NAMES.main);
    const entries = session.getEntries();
    expect(entries.length).toBeGreaterThanOrEqual(150);
    expect(session.getSessionName()).toBe('tiny-csv: quoted fields with commas');

    // Two forks: after the diagnosis (its label entry, under which the regex attempt went on, and the
    // branch summary of the way back) and before the release (the first request and its redo).
    const forks = entries.filter((entry) => session.getChildren(entry.id).length > 1);
    const diagnosis = byText(session, 'assistant', 'Found it.');
    const readmeDone = byText(session, 'assistant', 'README updated');
    expect(forks.map((entry) => entry.id)).toEqual([diagnosis.id, readmeDone.id]);
    expect(session.getChildren(diagnosis.id).map((child) => child.type)).toEqual(['label', 'branch_summary']);
    expect(session.getChildren(readmeDone.id).map((child) => child.type)).toEqual([
      'message',
      'thinking_level_change',
    ]);

    // The branch summary sits under the diagnosis, names the leaf it left (as pi 1.6 writes it: the
    // "wip" label entry that ended the regex attempt) and carries the files of the abandoned attempt.
    const summaries = entries.filter((entry) => entry.type === 'branch_summary');
    const wipLabel = entries.find((entry) => entry.type === 'label' && entry.label === 'wip');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      parentId: diagnosis.id,
      fromId: wipLabel?.id,
      details: {
        readFiles: ['package.json', 'src/index.ts', 'test/parse.test.ts'],
        modifiedFiles: ['src/parse.ts'],
      },
    });

    // The compaction keeps from the stringify request, which is on its path.
    const compactions = entries.filter((entry) => entry.type === 'compaction');
    expect(compactions).toHaveLength(1);
    const compaction = compactions[0] as SessionEntry;
    const keptFrom = byText(session, 'user', 'Add `stringifyCsv');
    expect(compaction.firstKeptEntryId).toBe(keptFrom.id);
    expect(session.getBranch(compaction.id).map((entry) => entry.id)).toContain(keptFrom.id);

    // Labels on the turning points; 'wip' was set and cleared again.
    expect(Object.keys(resolvedLabels(session)).sort()).toEqual(
      ['diagnosis', 'docs', 'green', 'regex dead end', 'release 1.1.0', 'state machine'].sort(),
    );
    const labelEntries = entries.filter((entry): entry is LabelEntry => entry.type === 'label');
    const wip = labelEntries.find((entry) => entry.label === 'wip') as LabelEntry;
    expect(
      labelEntries.filter((entry) => entry.targetId === wip.targetId).map((entry) => entry.label),
    ).toEqual(['wip', undefined]);
    expect(session.getLabel(wip.targetId)).toBeUndefined();

    // Model and thinking changes, a tool-only assistant, an error and an aborted turn, a user `!` command.
    const types = new Set(entries.map((entry) => entry.type));
    expect([...types].sort()).toEqual(
      [
        'branch_summary',
        'compaction',
        'custom',
        'custom_message',
        'label',
        'message',
        'model_change',
        'session_info',
        'thinking_level_change',
      ].sort(),
    );
    const assistants = entries
      .filter((entry) => entry.type === 'message' && (entry.message as { role: string }).role === 'assistant')
      .map((entry) => entry.message as AssistantMessage);
    const toolOnly = assistants.filter(
      (message) =>
        message.content.length > 0 &&
        message.content.every((block) => block.type !== 'text') &&
        message.stopReason === 'toolUse',
    );
    expect(toolOnly.length).toBeGreaterThan(5);
    expect(assistants.filter((message) => message.stopReason === 'aborted')).toHaveLength(1);
    expect(assistants.filter((message) => message.stopReason === 'error')).toHaveLength(1);
    const toolResults = entries.filter(
      (entry) => entry.type === 'message' && (entry.message as { role: string }).role === 'toolResult',
    );
    expect(toolResults.some((entry) => (entry.message as { isError: boolean }).isError)).toBe(true);
    expect(
      toolResults.every((entry) =>
        (entry.message as { content: { type: string }[] }).content.every((block) => block.type === 'text'),
      ),
    ).toBe(true);

    // At the leaf: the re-done release branch, after the compaction, with medium thinking on opus.
    const context = session.buildSessionContext();
    expect(context.messages[0]).toMatchObject({ role: 'compactionSummary', tokensBefore: 61_234 });
    expect(context.thinkingLevel).toBe('medium');
    expect(context.model).toEqual({ provider: 'anthropic', modelId: 'claude-opus-4-5' });
    const path = session.getBranch().map((entry) => entry.id);
    expect(path).toContain(summaries[0]?.id);
    expect(path).toContain(byText(session, 'user', 'Prepare a release as 1.1.0').id);
    expect(path).not.toContain(byText(session, 'user', 'Prepare a release: bump').id);
  });

  test('the branched session holds the main path up to the green answer, with lineage and recreated labels', () => {
    const sessions = demoSessions();
    const main = load(DEMO_FILE_NAMES.main, sessions);
    const branched = load(DEMO_FILE_NAMES.branched, sessions);
    expect(branched.getHeader()?.parentSession).toBe(DEMO_FILE_NAMES.main);

    const greenAnswer = byText(main, 'assistant', 'All 7 tests pass.');
    const mainPath = main.getBranch(greenAnswer.id).filter((entry) => entry.type !== 'label');
    const copied = branched.getEntries().slice(0, mainPath.length);
    expect(copied).toEqual(mainPath);

    // Fresh label entries follow the copied path, one per label that resolves on it.
    const labels = resolvedLabels(branched);
    expect(Object.keys(labels).sort()).toEqual(['diagnosis', 'green', 'open question', 'state machine']);
    for (const name of ['diagnosis', 'green', 'state machine'])
      expect(labels[name]).toBe(resolvedLabels(main)[name]);
    // Then the TSV work, with a side branch of its own.
    expect(byText(branched, 'user', 'Starting a separate line of work').parentId).not.toBeNull();
    expect(branched.getEntries().filter((entry) => branched.getChildren(entry.id).length > 1)).toHaveLength(
      1,
    );
  });

  test('the oh-my-pi session uses that dialect: "provider/id" model changes with roles, a title, ttsr and mode entries', () => {
    const session = load(DEMO_FILE_NAMES.omp);
    expect(session.dialect).toBe('omp');
    expect(session.getHeader()?.title).toBe('todo-cli: --json output for list');
    const modelChanges = session.getEntries().filter((entry) => entry.type === 'model_change');
    expect(modelChanges.map(({ model, role }) => ({ model, role }))).toEqual([
      { model: 'anthropic/claude-sonnet-4-5', role: 'default' },
      { model: 'anthropic/claude-haiku-4-5', role: 'smol' },
    ]);
    expect(session.getEntries().map((entry) => entry.type)).toEqual(
      expect.arrayContaining(['ttsr_injection', 'mode_change', 'branch_summary', 'compaction', 'label']),
    );
    const summary = session.getEntries().find((entry) => entry.type === 'branch_summary');
    expect(summary).toMatchObject({ fromExtension: true });
    expect(summary).not.toHaveProperty('fromHook');
    const context = session.buildSessionContext();
    expect(context.models).toEqual({
      default: 'anthropic/claude-sonnet-4-5',
      smol: 'anthropic/claude-haiku-4-5',
    });
    expect(context.injectedTtsrRules).toEqual(['no-console-log-in-lib']);
    expect(context.mode).toBe('none');
  });

  test('two builds are identical except for entry and session ids', () => {
    const first = demoSessions();
    const second = demoSessions();
    first.forEach((session, i) => {
      const a = SessionManager.fromJsonl(session.jsonl);
      const b = SessionManager.fromJsonl(second[i]?.jsonl ?? '');
      expect(snapshot(asApi(b), positionalIds(asApi(b)))).toEqual(
        snapshot(asApi(a), positionalIds(asApi(a))),
      );
      const { id: _a, ...headerA } = a.getHeader() ?? {};
      const { id: _b, ...headerB } = b.getHeader() ?? {};
      expect(headerB).toEqual(headerA);
    });
  });

  test('each demo session opens in the reference with the same tree, leaf, paths and contexts', () => {
    const target = join(dir, 'reference');
    mkdirSync(target);
    const paths = demoSessions({ pathOf: (fileName) => join(target, fileName) }).map((session) => {
      const path = join(target, session.fileName);
      writeFileSync(path, session.jsonl);
      return path;
    });
    for (const path of paths) {
      const text = readFileSync(path, 'utf8');
      const core = SessionManager.fromJsonl(text);
      const ref = openReference(path, dir);
      const omp = core.dialect === 'omp';
      // The reference is pi: its contexts follow pi's rules, so the oh-my-pi session is compared under
      // those (oh-my-pi's own context rules are tested in session-core's omp.test.ts). The reference
      // does not read oh-my-pi's model_change shape nor its header title either.
      if (omp) core.dialect = 'pi';
      expectSameSession(asApi(ref), asApi(core), { omp });
      // Opening does not rewrite a version 3 file.
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });

  test('pathOf names session 1 in the header parentSession of session 2', () => {
    const [, branched] = demoSessions({ pathOf: (fileName) => `/sessions/${fileName}` });
    expect(SessionManager.fromJsonl(branched?.jsonl ?? '').getHeader()?.parentSession).toBe(
      `/sessions/${DEMO_FILE_NAMES.main}`,
    );
  });

  test('the global Date is never replaced while the sessions are built', () => {
    const RealDate = globalThis.Date;
    const seen: DateConstructor[] = [];
    const sessions = demoSessions({
      pathOf: (fileName) => {
        seen.push(globalThis.Date);
        return fileName;
      },
    });
    expect(sessions).toHaveLength(3);
    expect(seen).toEqual([RealDate, RealDate]);
    expect(globalThis.Date).toBe(RealDate);
  });
});
