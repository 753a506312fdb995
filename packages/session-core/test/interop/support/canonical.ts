// Canonical JSON: what a value means once written to a session file, as one comparable string.
// It follows JSON.stringify (undefined keys dropped, undefined in arrays and non-finite numbers as null,
// -0 as 0) and sorts keys, so that two implementations that build entries with a different key order
// compare equal. Strings are built directly instead of through objects, so an own `__proto__` key survives.

/** The JSON meaning of `value`: undefined keys dropped, keys sorted, as one string. */
export function canonicalJson(value: unknown): string {
  return canonicalOf(value) ?? 'undefined';
}

function canonicalOf(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalOf(item) ?? 'null').join(',')}]`;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalOf((value as { toJSON(): unknown }).toJSON());
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = canonicalOf(record[key]);
    if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
  }
  return `{${parts.join(',')}}`;
}

/** Each line of a JSONL text in canonical form (blank lines dropped), to compare two files by meaning. */
export function sameMeaningLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => canonicalJson(JSON.parse(line)));
}
