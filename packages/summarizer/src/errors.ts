// Provider failures as a person can act on them, and never with a secret in them.

/** Replaces every occurrence of each secret (of 6 characters or more) with `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let scrubbed = text;
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = [
    ...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6)),
  ].sort((a, b) => b.length - a.length);
  for (const secret of sorted) scrubbed = scrubbed.split(secret).join('[redacted]');
  return scrubbed;
}

const NETWORK_CAUSES: Array<[RegExp, (where: string) => string]> = [
  [/ECONNREFUSED|connection refused/i, (where) => `nothing is listening at ${where} (connection refused)`],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo/i, (where) => `the host of ${where} is not found (DNS)`],
  [/ETIMEDOUT|timed? out|timeout/i, (where) => `${where} did not answer in time`],
  [/ECONNRESET|socket hang up|other side closed|terminated/i, (where) => `${where} closed the connection`],
  [/certificate|self[- ]signed|CERT_/i, (where) => `the TLS certificate of ${where} was refused`],
];

/**
 * pi-ai reports a network failure as the client's words plus the cause ("Connection error.:
 * connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)"); this leads with what it means.
 */
export function describeFailure(message: string, baseUrl: string | undefined): string {
  const where = baseUrl ? originOf(baseUrl) : 'the provider';
  for (const [pattern, explain] of NETWORK_CAUSES) {
    if (pattern.test(message)) return `${explain(where)}: ${message}`;
  }
  return message;
}

function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the base URL';
  }
}

/** The secrets a URL may carry: its user name and password, and its query values. */
export function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    const secrets = [decodeURIComponent(parsed.username), decodeURIComponent(parsed.password)];
    for (const value of parsed.searchParams.values()) secrets.push(value);
    if (parsed.username || parsed.password) secrets.push(`${parsed.username}:${parsed.password}`);
    return secrets.filter((secret) => secret.length >= 6);
  } catch {
    return [];
  }
}
