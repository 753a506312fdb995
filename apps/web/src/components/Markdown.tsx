import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo, useState, type ReactNode } from 'react';

// Session texts can be huge (a pasted log); rendering a megabyte of markdown blocks the page, so
// long texts render their beginning and offer the rest on demand.
const MARKDOWN_LIMIT = 60_000;

export function Markdown({ text, testId }: { text: string; testId?: string }) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll || text.length <= MARKDOWN_LIMIT ? text : text.slice(0, MARKDOWN_LIMIT);
  const html = useMemo(() => {
    const raw = marked.parse(shown, { async: false, gfm: true, breaks: false });
    // Session content is untrusted (it came from a model or a tool): sanitise before it reaches the DOM.
    return DOMPurify.sanitize(raw, { USE_PROFILES: { html: true } });
  }, [shown]);
  return (
    <div className="markdown" data-testid={testId}>
      <div dangerouslySetInnerHTML={{ __html: html }} />
      {shown.length < text.length && (
        <button type="button" onClick={() => setShowAll(true)}>
          Show all ({text.length.toLocaleString()} characters)
        </button>
      )}
    </div>
  );
}

const PRE_LIMIT = 40_000;

/** Preformatted text (tool output, code), truncated for display like Markdown. */
export function Pre({ text, testId }: { text: string; testId?: string }) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll || text.length <= PRE_LIMIT ? text : text.slice(0, PRE_LIMIT);
  return (
    <>
      <pre data-testid={testId}>{shown}</pre>
      {shown.length < text.length && (
        <button type="button" onClick={() => setShowAll(true)}>
          Show all ({text.length.toLocaleString()} characters)
        </button>
      )}
    </>
  );
}

/**
 * A collapsed block whose body is rendered only once it is first opened (and kept after): a long
 * thinking block's markdown was parsed and sanitised on every selection of its message, closed.
 */
export function OpenedOnce({
  summary,
  testId,
  children,
}: {
  summary: string;
  testId?: string;
  children: ReactNode;
}) {
  const [opened, setOpened] = useState(false);
  return (
    <details
      className="block"
      data-testid={testId}
      onToggle={(e) => {
        if (e.currentTarget.open) setOpened(true);
      }}
    >
      <summary>{summary}</summary>
      <div className="block-body">{opened && children}</div>
    </details>
  );
}
