// Splits text into plain and matching segments for highlighting search tokens. Matching itself
// (which rows are shown) is session-core's; this only marks where the tokens occur in a string.

export interface Segment {
  text: string;
  match: boolean;
}

/**
 * The text cut into plain and matching segments. Only the first `limit` characters are marked (a
 * match that starts before the limit is marked whole); the rest is one plain segment. A row is one
 * line clipped at the pane's edge, so marks past what can show are only elements to lay out: with a
 * one-letter query they were hundreds per row, most of a search keystroke's render and layout.
 */
export function highlightSegments(
  text: string,
  tokens: readonly string[],
  limit: number = Number.POSITIVE_INFINITY,
): Segment[] {
  if (tokens.length === 0 || text.length === 0) return [{ text, match: false }];
  const lower = text.toLowerCase();
  // Lower-casing can change the length of a few characters (e.g. 'İ'); positions are then unreliable.
  if (lower.length !== text.length) return [{ text, match: false }];
  const marked = new Uint8Array(text.length);
  for (const token of tokens) {
    if (!token) continue;
    let from = 0;
    for (;;) {
      const at = lower.indexOf(token, from);
      if (at < 0 || at >= limit) break;
      marked.fill(1, at, at + token.length);
      from = at + 1;
    }
  }
  // Past the last mark the text is one plain segment, however long.
  const segments: Segment[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || marked[i] !== marked[start]) {
      segments.push({ text: text.slice(start, i), match: marked[start] === 1 });
      start = i;
    }
  }
  return segments;
}
