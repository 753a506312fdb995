// Full content of one entry. Which sections an entry has, and which of its fields fill them, is
// session-core's entry-type table (`detailSections`); this file draws each kind of section, in one
// exhaustive switch, so a new kind is a compile error here until it is drawn. Everything comes from
// the session file and is untrusted: markdown goes through DOMPurify (Markdown), everything else is
// rendered as text by React. One file on purpose, so every path by which untrusted file content
// reaches the DOM is reviewed in one place.

import { createContext, useContext, useEffect, useState } from 'react';
import type { EntryDetail } from '@canopy/protocol';
import {
  detailSections,
  type DetailExtras,
  type DetailField,
  type DetailSection,
  type SessionEntry,
} from '@canopy/session-core';
import { formatCost, formatTokens } from '../lib/format';
import { artifactIdsIn, blobHashOf } from '../lib/ompFiles';
import { messageOf } from '../net/errors';
import { useApp, useAppStore } from '../store/context';
import { ArtifactView } from './ArtifactView';
import { Markdown, OpenedOnce, Pre } from './Markdown';

/** The open session's id: blob images and artifacts are fetched through it. */
export const EntrySessionContext = createContext<string | null>(null);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * An image blob, fetched with the access token's header and shown from an object URL (an <img src>
 * to the API would need a credential the browser sends on its own), released when it goes.
 */
function BlobImage({ sessionId, hash }: { sessionId: string; hash: string }) {
  const [shown, setShown] = useState<{ src: string } | { error: string } | null>(null);
  const store = useAppStore();
  useEffect(() => {
    let live = true;
    let url: string | undefined;
    store
      .getState()
      .loadBlob(sessionId, hash)
      .then(
        (blob) => {
          if (!live) return;
          url = URL.createObjectURL(blob);
          setShown({ src: url });
        },
        (error: unknown) => {
          if (live) setShown({ error: messageOf(error) });
        },
      );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [store, sessionId, hash]);
  if (shown && 'error' in shown) {
    return (
      <div className="notice warn" data-testid="detail.image-error">
        Image blob not shown: {shown.error}
      </div>
    );
  }
  return (
    <img
      className="content-image"
      alt={`image blob ${hash.slice(0, 12)}`}
      src={shown?.src}
      data-testid="detail.image"
    />
  );
}

function ImageBlock({ block }: { block: Json }) {
  const sessionId = useContext(EntrySessionContext);
  const mime = str(block.mimeType);
  const data = str(block.data);
  // oh-my-pi stores images as `blob:sha256:<hex>`: the server serves them, after checking the bytes.
  const hash = blobHashOf(data);
  if (hash !== undefined) {
    if (!sessionId) return <div className="notice warn">Image blob not shown</div>;
    return <BlobImage sessionId={sessionId} hash={hash} />;
  }
  // Only raster image types as data URLs: an SVG could carry script.
  if (!/^image\/(png|jpe?g|gif|webp|bmp)$/i.test(mime) || !/^[A-Za-z0-9+/=\s]*$/.test(data)) {
    return <div className="notice warn">Image ({mime || 'unknown type'}) not shown</div>;
  }
  return (
    <img
      className="content-image"
      alt="attached image"
      src={`data:${mime};base64,${data}`}
      data-testid="detail.image"
    />
  );
}

/** User-style content: a string, or text and image blocks. */
function Content({ content, as = 'markdown' }: { content: unknown; as?: 'markdown' | 'pre' }) {
  if (typeof content === 'string') return as === 'pre' ? <Pre text={content} /> : <Markdown text={content} />;
  if (!Array.isArray(content)) return null;
  return (
    <>
      {content.map((block, i) => {
        if (!isObject(block)) return null;
        if (block.type === 'text')
          return as === 'pre' ? (
            <Pre key={i} text={str(block.text)} />
          ) : (
            <Markdown key={i} text={str(block.text)} />
          );
        if (block.type === 'image') return <ImageBlock key={i} block={block} />;
        return <Pre key={i} text={json(block)} />;
      })}
    </>
  );
}

function ToolCallBlock({ call }: { call: Json }) {
  return (
    <div className="block" data-testid="detail.toolcall">
      <div className="block-head">
        <span>tool call</span>
        <strong className="mono">{str(call.name)}</strong>
        <span className="mono">{str(call.id)}</span>
      </div>
      <div className="block-body">
        <Pre text={json(call.arguments)} />
      </div>
    </div>
  );
}

/** Some writers leave totalTokens at 0; the sum of the parts is the total then. */
function totalTokens(usage: Json): number {
  const total = num(usage.totalTokens);
  return total > 0
    ? total
    : num(usage.input) + num(usage.output) + num(usage.cacheRead) + num(usage.cacheWrite);
}

export function UsageTable({
  usage,
  title = 'usage',
  testId = 'detail.usage',
}: {
  usage: Json;
  title?: string;
  testId?: string;
}) {
  const cost = isObject(usage.cost) ? usage.cost : {};
  const rows: [string, unknown, unknown][] = [
    ['input', usage.input, cost.input],
    ['output', usage.output, cost.output],
    ['cache read', usage.cacheRead, cost.cacheRead],
    ['cache write', usage.cacheWrite, cost.cacheWrite],
  ];
  return (
    <table className="kv" data-testid={testId}>
      <thead>
        <tr>
          <th>{title}</th>
          <th className="num">tokens</th>
          <th className="num">cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, tokens, dollars]) => (
          <tr key={name}>
            <td>{name}</td>
            <td className="num">{num(tokens).toLocaleString()}</td>
            <td className="num">{formatCost(num(dollars))}</td>
          </tr>
        ))}
        <tr>
          <th>total</th>
          <th className="num">{formatTokens(totalTokens(usage))}</th>
          <th className="num">{formatCost(num(cost.total))}</th>
        </tr>
      </tbody>
    </table>
  );
}

function FileLists({ details }: { details: unknown }) {
  if (!isObject(details)) return <Pre text={json(details)} />;
  const read = Array.isArray(details.readFiles) ? details.readFiles.map(String) : [];
  const modified = Array.isArray(details.modifiedFiles) ? details.modifiedFiles.map(String) : [];
  if (read.length === 0 && modified.length === 0) return <Pre text={json(details)} />;
  return (
    <table className="kv">
      <tbody>
        {read.length > 0 && (
          <tr>
            <td>read</td>
            <td className="mono">{read.join('\n')}</td>
          </tr>
        )}
        {modified.length > 0 && (
          <tr>
            <td>modified</td>
            <td className="mono">{modified.join('\n')}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

function Fields({ fields }: { fields: DetailField[] }) {
  return (
    <table className="kv">
      <tbody>
        {fields.map(({ name, value }) => (
          <tr key={name}>
            <td>{name}</td>
            <td className="mono">{typeof value === 'string' ? value : json(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** An assistant reply's blocks, each drawn by its kind. */
function AssistantBlocks({ blocks }: { blocks: unknown[] }) {
  if (blocks.length === 0) return <div className="help">(no content)</div>;
  return (
    <>
      {blocks.map((block, i) => {
        if (!isObject(block)) return null;
        if (block.type === 'thinking')
          return (
            <OpenedOnce
              key={i}
              testId="detail.thinking"
              summary={`thinking (${str(block.thinking).length.toLocaleString()} characters)`}
            >
              <Markdown text={str(block.thinking)} />
            </OpenedOnce>
          );
        if (block.type === 'redactedThinking')
          return (
            <div className="block" key={i} data-testid="detail.redacted-thinking">
              <div className="block-head">
                <span>redacted thinking (encrypted by the provider, not readable)</span>
              </div>
            </div>
          );
        if (block.type === 'text') return <Markdown key={i} text={str(block.text)} testId="detail.text" />;
        if (block.type === 'toolCall') return <ToolCallBlock key={i} call={block} />;
        if (block.type === 'image') return <ImageBlock key={i} block={block} />;
        return <Pre key={i} text={json(block)} />;
      })}
    </>
  );
}

/** Another entry of the session, selectable when the tree holds it. */
function EntryLink({ text, id, testId }: { text: string; id: string | null; testId: string }) {
  const store = useAppStore();
  const present = useApp((s) => (id === null ? false : s.treeView?.tree.get(id) !== undefined));
  return (
    <div className="detail-meta" data-testid={testId}>
      <span>{text}</span>
      {id === null ? (
        <span className="help">the start of the session (before the first entry)</span>
      ) : present ? (
        <button type="button" className="link mono" onClick={() => store.getState().select(id)}>
          {id}
        </button>
      ) : (
        <span className="mono" title="This entry is not in this file">
          {id} (not in this file)
        </span>
      )}
    </div>
  );
}

type NestedCalls = Extract<DetailSection, { kind: 'nestedCalls' }>;

function NestedCallsTable({ calls, complete }: Pick<NestedCalls, 'calls' | 'complete'>) {
  return (
    <details className="block" data-testid="detail.nested-calls" open>
      <summary>
        calls it made to other tools ({calls.length}
        {complete ? '' : ', incomplete record'})
      </summary>
      <table className="kv">
        <tbody>
          {calls.map((call, i) => (
            <tr key={`${call.id}-${i}`}>
              <td className="mono">{call.name}</td>
              <td>{call.status}</td>
              <td className="mono">
                {call.arguments !== undefined
                  ? json(call.arguments)
                  : call.argumentsBytes !== undefined
                    ? `(arguments left out: ${call.argumentsBytes.toLocaleString()} bytes)`
                    : ''}
                {call.error ? ` · ${call.error}` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

type SystemPrompt = Extract<DetailSection, { kind: 'systemPrompt' }>;

function SystemPromptView({ section }: { section: SystemPrompt }) {
  return (
    <div data-testid="detail.system">
      {section.content && <Pre text={section.content} />}
      {section.sections.map(({ name, text }) =>
        text === null ? (
          <div key={name} className="detail-meta">
            <span className="mono">{name}</span>
            <span>removed</span>
          </div>
        ) : (
          <details className="block" key={name}>
            <summary className="mono">
              {name} ({text.length.toLocaleString()} characters)
            </summary>
            <div className="block-body">
              <Pre text={text} />
            </div>
          </details>
        ),
      )}
      {section.toolsAdded.length > 0 && (
        <table className="kv" data-testid="detail.tools-added">
          <thead>
            <tr>
              <th>tools added</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {section.toolsAdded.map((tool) => (
              <tr key={tool.name}>
                <td className="mono">{tool.name}</td>
                <td>{tool.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {section.toolsRemoved.length > 0 && (
        <div className="detail-meta" data-testid="detail.tools-removed">
          <span>tools removed:</span>
          <span className="mono">{section.toolsRemoved.join(', ')}</span>
        </div>
      )}
    </div>
  );
}

/** One section of an entry's detail (session-core's detail-sections.ts), by its kind. */
function Section({ section }: { section: DetailSection }) {
  switch (section.kind) {
    case 'meta':
      return (
        <div className="detail-meta">
          {section.items.map((item, i) => (
            <span key={i} className={item.mono ? 'mono' : undefined} data-testid={item.testId}>
              {item.text}
            </span>
          ))}
        </div>
      );
    case 'note':
      return (
        <div
          className={section.tone === 'help' ? 'help' : `notice ${section.tone}`}
          data-testid={section.testId}
        >
          {section.text}
        </div>
      );
    case 'fields':
      return <Fields fields={section.fields} />;
    case 'markdown':
      return <Markdown text={section.text} testId={section.testId} />;
    case 'content':
      return <Content content={section.content} as={section.as} />;
    case 'assistantContent':
      return <AssistantBlocks blocks={section.blocks} />;
    case 'toolCall':
      return section.call ? (
        <ToolCallBlock
          call={{ name: section.call.name, id: section.call.id, arguments: section.call.arguments }}
        />
      ) : (
        <div className="help">Tool call {section.callId} not found</div>
      );
    case 'toolResult':
      return (
        <div className={`block${section.isError ? ' error' : ''}`} data-testid="detail.toolresult">
          <div className="block-head">
            <span>result of</span>
            <strong className="mono">{section.toolName}</strong>
            {section.isError && <span style={{ color: 'var(--error)' }}>error</span>}
          </div>
          <div className="block-body">
            <Content content={section.content} as="pre" />
          </div>
        </div>
      );
    case 'artifacts':
      return <Artifacts content={section.content} />;
    case 'command':
      return (
        <div className="block">
          <div className="block-head">
            {section.head.map((item, i) => (
              <span key={i} className={i === 0 ? 'mono' : undefined}>
                {item}
              </span>
            ))}
          </div>
          <div className="block-body">
            {section.body.map((text, i) => (
              <Pre key={i} text={text} />
            ))}
          </div>
        </div>
      );
    case 'usage':
      return <UsageTable usage={section.usage} title={section.title} testId={section.testId} />;
    case 'fileLists':
      return <FileLists details={section.details} />;
    case 'json':
      return (
        <details className="block" data-testid={section.testId}>
          <summary>{section.title}</summary>
          <div className="block-body">
            <Pre text={json(section.value)} />
          </div>
        </details>
      );
    case 'folded':
      return (
        <details className="block" data-testid={section.testId}>
          <summary className="mono">{section.title}</summary>
          <div className="block-body">
            <Pre text={section.text} />
          </div>
        </details>
      );
    case 'entryLink':
      return <EntryLink text={section.text} id={section.id} testId={section.testId} />;
    case 'nestedCalls':
      return <NestedCallsTable calls={section.calls} complete={section.complete} />;
    case 'systemPrompt':
      return <SystemPromptView section={section} />;
    default: {
      const unknownKind: never = section;
      return <Pre text={json(unknownKind)} />;
    }
  }
}

/** The full content of one entry: the sections session-core's entry-type table gives it. */
export function EntryContent({ detail }: { detail: EntryDetail }) {
  const extras: DetailExtras = {};
  if (detail.toolCall) extras.toolCall = detail.toolCall;
  if (detail.summaryOrigin) extras.summaryOrigin = detail.summaryOrigin;
  const sections = detailSections(detail.entry as unknown as SessionEntry, extras);
  return (
    <>
      {sections.map((section, i) => (
        <Section key={i} section={section} />
      ))}
    </>
  );
}

/** Every `artifact://N` a tool result names, each openable in place. */
function Artifacts({ content }: { content: unknown }) {
  const sessionId = useContext(EntrySessionContext);
  const ids = artifactIdsIn(content);
  if (!sessionId || ids.length === 0) return null;
  return (
    <>
      {ids.map((id) => (
        <ArtifactView key={id} sessionId={sessionId} artifactId={id} />
      ))}
    </>
  );
}

export function RawJson({ value }: { value: unknown }) {
  return (
    <details className="block" data-testid="detail.raw">
      <summary>raw JSON</summary>
      <div className="block-body">
        <Pre text={json(value)} />
      </div>
    </details>
  );
}
