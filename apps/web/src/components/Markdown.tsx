import { useEffect, useMemo, useState, type ReactNode } from 'react';

type RenderMarkdown = (text: string) => string;

let renderMarkdown: RenderMarkdown | undefined;
let loadingMarkdown: Promise<RenderMarkdown> | undefined;

/** One kind of markdown per piece, so that each piece runs a few of marked's rules for the first time. */
const WARM_UP_PIECES = [
  '# a',
  '**b**',
  '_c_',
  '`d` [e](https://example.com)',
  '- f',
  '```\ng\n```',
  '| h |\n| - |\n| i |',
];

/**
 * Loads the markdown renderer's chunk (lib/markdownHtml.ts) once; main.tsx starts it after the
 * page's first task, so it is usually in before any text is shown. The renderer's first calls cost
 * tens of ms (code and regular expressions run for the first time), which would otherwise fall in
 * the render of the first text shown; so marked parses each warm-up piece in a task of its own and
 * DOMPurify sanitises the result in one more. Done as one text, that was a 40-55 ms task while a
 * session opened (75 ms on a busy machine); in pieces each task is 6-25 ms.
 */
export function loadMarkdown(): Promise<RenderMarkdown> {
  loadingMarkdown ??= import('../lib/markdownHtml').then(
    ({ markdownToHtml, safeHtml, markdownToSafeHtml }) => {
      const html: string[] = [];
      const warmUp = (piece: number) => {
        if (piece < WARM_UP_PIECES.length) {
          html.push(markdownToHtml(WARM_UP_PIECES[piece]!));
          setTimeout(() => warmUp(piece + 1), 0);
        } else safeHtml(html.join(''));
      };
      setTimeout(() => warmUp(0), 0);
      renderMarkdown = markdownToSafeHtml;
      return markdownToSafeHtml;
    },
  );
  return loadingMarkdown;
}

// Session texts can be huge (a pasted log); rendering a megabyte of markdown blocks the page, so
// long texts render their beginning and offer the rest on demand.
const MARKDOWN_LIMIT = 60_000;

export function Markdown({ text, testId }: { text: string; testId?: string }) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll || text.length <= MARKDOWN_LIMIT ? text : text.slice(0, MARKDOWN_LIMIT);
  const [render, setRender] = useState(() => renderMarkdown);
  useEffect(() => {
    if (render) return;
    let current = true;
    void loadMarkdown().then((loaded) => {
      if (current) setRender(() => loaded);
    });
    return () => {
      current = false;
    };
  }, [render]);
  const html = useMemo(() => render?.(shown), [render, shown]);
  return (
    <div className="markdown" data-testid={testId} aria-busy={html === undefined}>
      {html === undefined ? (
        // Until the renderer's chunk is in (a moment, once per page): the text as it is, never as HTML.
        <p className="markdown-pending">{shown}</p>
      ) : (
        <div dangerouslySetInnerHTML={{ __html: html }} />
      )}
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
