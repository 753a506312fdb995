// Full content of one entry, by type. Everything here comes from the session file and is untrusted:
// markdown goes through DOMPurify (Markdown), everything else is rendered as text by React.
// One file on purpose: one small renderer per entry type, so every path by which untrusted file content
// reaches the DOM is reviewed in one place.

import { createContext, useContext, useEffect, useState } from 'react';
import type { EntryDetail } from '@canopy/protocol';
import { formatCost, formatTokens } from '../lib/format';
import { artifactIdsIn, blobHashOf } from '../lib/ompFiles';
import { api } from '../net/api';
import { messageOf } from '../net/errors';
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
  useEffect(() => {
    let live = true;
    let url: string | undefined;
    api.getBlob(sessionId, hash).then(
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
  }, [sessionId, hash]);
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

export function UsageTable({ usage }: { usage: Json }) {
  const cost = isObject(usage.cost) ? usage.cost : {};
  const rows: [string, unknown, unknown][] = [
    ['input', usage.input, cost.input],
    ['output', usage.output, cost.output],
    ['cache read', usage.cacheRead, cost.cacheRead],
    ['cache write', usage.cacheWrite, cost.cacheWrite],
  ];
  return (
    <table className="kv" data-testid="detail.usage">
      <thead>
        <tr>
          <th>usage</th>
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
  if (!isObject(details)) return null;
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

function Fields({ entry, keys }: { entry: Json; keys: string[] }) {
  const present = keys.filter((k) => entry[k] !== undefined);
  if (present.length === 0) return null;
  return (
    <table className="kv">
      <tbody>
        {present.map((k) => (
          <tr key={k}>
            <td>{k}</td>
            <td className="mono">{typeof entry[k] === 'string' ? (entry[k] as string) : json(entry[k])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MessageContent({ message, detail }: { message: Json; detail: EntryDetail }) {
  const role = str(message.role);
  switch (role) {
    case 'user':
      return <Content content={message.content} />;
    case 'assistant': {
      const blocks = Array.isArray(message.content) ? message.content : [];
      const stop = str(message.stopReason);
      return (
        <>
          <div className="detail-meta">
            <span className="mono">
              {str(message.provider)}/{str(message.model)}
            </span>
            {stop && <span>stop: {stop}</span>}
          </div>
          {message.errorMessage !== undefined && (
            <div className="notice error" data-testid="detail.error">
              {str(message.errorMessage)}
            </div>
          )}
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
            if (block.type === 'text')
              return <Markdown key={i} text={str(block.text)} testId="detail.text" />;
            if (block.type === 'toolCall') return <ToolCallBlock key={i} call={block} />;
            if (block.type === 'image') return <ImageBlock key={i} block={block} />;
            return <Pre key={i} text={json(block)} />;
          })}
          {blocks.length === 0 && <div className="help">(no content)</div>}
          {isObject(message.usage) && <UsageTable usage={message.usage} />}
        </>
      );
    }
    case 'toolResult': {
      const isError = message.isError === true;
      return (
        <>
          {detail.toolCall ? (
            <ToolCallBlock
              call={{
                name: detail.toolCall.name,
                id: detail.toolCall.id,
                arguments: detail.toolCall.arguments,
              }}
            />
          ) : (
            <div className="help">Tool call {str(message.toolCallId)} not found</div>
          )}
          <div className={`block${isError ? ' error' : ''}`} data-testid="detail.toolresult">
            <div className="block-head">
              <span>result of</span>
              <strong className="mono">{str(message.toolName)}</strong>
              {isError && <span style={{ color: 'var(--error)' }}>error</span>}
            </div>
            <div className="block-body">
              <Content content={message.content} as="pre" />
            </div>
          </div>
          <Artifacts content={message.content} />
          {message.details !== undefined && (
            <details className="block">
              <summary>details</summary>
              <div className="block-body">
                <Pre text={json(message.details)} />
              </div>
            </details>
          )}
        </>
      );
    }
    case 'bashExecution':
      return (
        <div className="block">
          <div className="block-head">
            <span className="mono">$ {str(message.command)}</span>
            {message.exitCode !== undefined && <span>exit {String(message.exitCode)}</span>}
            {message.cancelled === true && <span>cancelled</span>}
            {message.truncated === true && <span>truncated</span>}
            {message.excludeFromContext === true && <span>not in context</span>}
          </div>
          <div className="block-body">
            <Pre text={str(message.output) || '(no output)'} />
          </div>
        </div>
      );
    case 'developer':
      return (
        <>
          <div className="help">Instructions the agent gave the model (oh-my-pi developer message)</div>
          <Content content={message.content} />
        </>
      );
    case 'pythonExecution':
      return (
        <div className="block">
          <div className="block-head">
            <span>python</span>
            {message.exitCode !== undefined && <span>exit {String(message.exitCode)}</span>}
            {message.cancelled === true && <span>cancelled</span>}
            {message.excludeFromContext === true && <span>not in context</span>}
          </div>
          <div className="block-body">
            <Pre text={str(message.code)} />
            <Pre text={str(message.output) || '(no output)'} />
          </div>
        </div>
      );
    case 'custom':
    case 'hookMessage':
      return (
        <>
          <Fields entry={message} keys={['customType', 'display']} />
          <Content content={message.content} />
        </>
      );
    case 'fileMention': {
      const files = Array.isArray(message.files) ? message.files.filter(isObject) : [];
      return (
        <>
          {files.map((file, i) => (
            <details className="block" key={i}>
              <summary className="mono">{str(file.path)}</summary>
              <div className="block-body">
                <Pre text={str(file.content)} />
              </div>
            </details>
          ))}
        </>
      );
    }
    default:
      return <Pre text={json(message)} />;
  }
}

export function EntryContent({ detail }: { detail: EntryDetail }) {
  const entry = detail.entry as Json;
  const type = str(entry.type);
  switch (type) {
    case 'message':
      return isObject(entry.message) ? <MessageContent message={entry.message} detail={detail} /> : null;
    case 'compaction':
      return (
        <>
          <div className="detail-meta">
            <span>{formatTokens(num(entry.tokensBefore))} tokens before</span>
            <span className="mono">first kept: {str(entry.firstKeptEntryId)}</span>
          </div>
          <Markdown text={str(entry.summary)} testId="detail.summary" />
          <FileLists details={entry.details} />
        </>
      );
    case 'branch_summary': {
      const markerKind = str(entry.summary) === '' && isObject(entry.details) ? str(entry.details.kind) : '';
      return (
        <>
          <div className="detail-meta">
            <span className="mono">from: {str(entry.fromId)}</span>
            {(entry.fromExtension === true || entry.fromHook === true) && <span>from an extension</span>}
          </div>
          {markerKind ? (
            <>
              <div className="help" data-testid="detail.marker">
                A branch marker ({markerKind}) with no summary: oh-my-pi writes it so the chosen branch
                survives a reload. It adds nothing to the model context.
              </div>
              <Pre text={json(entry.details)} />
            </>
          ) : (
            <>
              <Markdown text={str(entry.summary)} testId="detail.summary" />
              <FileLists details={entry.details} />
            </>
          )}
        </>
      );
    }
    case 'custom_message':
      return (
        <>
          <Fields entry={entry} keys={['customType', 'display']} />
          <Content content={entry.content} />
          {entry.details !== undefined && <Pre text={json(entry.details)} />}
        </>
      );
    case 'model_change':
      return <Fields entry={entry} keys={['provider', 'modelId', 'model', 'role']} />;
    case 'thinking_level_change':
      return <Fields entry={entry} keys={['thinkingLevel', 'configured']} />;
    case 'label':
      return <Fields entry={entry} keys={['targetId', 'label']} />;
    case 'session_info':
      return <Fields entry={entry} keys={['name']} />;
    case 'custom':
      return (
        <>
          <Fields entry={entry} keys={['customType']} />
          {entry.data !== undefined && <Pre text={json(entry.data)} />}
        </>
      );
    case 'ttsr_injection':
      return <Fields entry={entry} keys={['injectedRules']} />;
    case 'mode_change':
      return <Fields entry={entry} keys={['mode', 'data']} />;
    case 'title_change':
      return <Fields entry={entry} keys={['title', 'previousTitle', 'source', 'trigger']} />;
    case 'model_usage':
      return (
        <>
          <div className="help">A side call (not part of the conversation) and what it used.</div>
          <Fields
            entry={entry}
            keys={['purpose', 'role', 'provider', 'model', 'api', 'stopReason', 'errorMessage']}
          />
          {isObject(entry.usage) && <UsageTable usage={entry.usage} />}
        </>
      );
    case 'service_tier_change':
      return <Fields entry={entry} keys={['serviceTier']} />;
    case 'credential_pin':
      return <Fields entry={entry} keys={['provider', 'hash']} />;
    case 'reset_boundary':
      return (
        <div className="help" data-testid="detail.reset">
          Written by /clear: the model context starts after this entry (unless a later compaction).
        </div>
      );
    case 'session_init':
      return (
        <>
          <Fields entry={entry} keys={['agent', 'task', 'tools', 'modelRole', 'resolvedModel', 'readOnly']} />
          <details className="block">
            <summary>system prompt ({str(entry.systemPrompt).length.toLocaleString()} characters)</summary>
            <div className="block-body">
              <Pre text={str(entry.systemPrompt)} />
            </div>
          </details>
        </>
      );
    default:
      return (
        <div className="help">Entry type “{type}” is not known to Canopy; its raw content is below.</div>
      );
  }
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
