import { highlightSegments } from '../lib/highlight';

/**
 * Text with the search tokens marked. `limit`: only matches starting within that many characters
 * are marked (the text is one line clipped by its box; see highlightSegments). Plain segments are
 * text nodes, not elements: fewer nodes to create and lay out on every keystroke.
 */
export function Highlighted({
  text,
  tokens,
  limit,
}: {
  text: string;
  tokens: readonly string[];
  limit?: number;
}) {
  if (tokens.length === 0) return <>{text}</>;
  return (
    <>
      {highlightSegments(text, tokens, limit).map((segment, i) =>
        segment.match ? <mark key={i}>{segment.text}</mark> : segment.text,
      )}
    </>
  );
}
