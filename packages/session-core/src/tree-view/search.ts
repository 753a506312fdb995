// Search of the tree selector (docs/tree-and-context.md#search): whitespace-separated tokens,
// case-insensitive substrings, all of which must match.

import type { ViewEntry } from './view-entry';

/** The lower-cased non-empty tokens of a query. */
export function tokenizeQuery(query: string): string[] {
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((token) => token.length > 0);
}

/**
 * Whether every token occurs in `label + " " + search`. Tokens hold no whitespace, so no token can
 * straddle the joining space, and testing the two parts separately gives the same answer without
 * building a string per entry.
 */
export function matchesQuery(entry: ViewEntry, tokens: readonly string[]): boolean {
  if (tokens.length === 0) return true;
  const label = entry.label ? entry.label.toLowerCase() : '';
  const search = entry.search;
  for (const token of tokens) {
    if (!search.includes(token) && !(label !== '' && label.includes(token))) return false;
  }
  return true;
}
