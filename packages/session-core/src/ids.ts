// Id generation as the reference (pi) does it. session-core is pure, so it reaches the Web Crypto
// object through globalThis: it exists in Node 20 and in browsers, but the package compiles without
// the DOM or Node type libraries.

interface RandomUuidSource {
  randomUUID(): string;
}

function webCrypto(): RandomUuidSource {
  return (globalThis as unknown as { crypto: RandomUuidSource }).crypto;
}

/** How many short ids to try before falling back to a full UUID (the reference's figure). */
const SHORT_ID_ATTEMPTS = 100;

/**
 * A new entry id: the first 8 hex digits of a random v4 UUID, retried until it is not in `taken`,
 * then a full UUID (so it never loops forever on a crowded or adversarial index).
 */
export function generateEntryId(taken: { has(id: string): boolean }): string {
  const crypto = webCrypto();
  for (let attempt = 0; attempt < SHORT_ID_ATTEMPTS; attempt++) {
    const id = crypto.randomUUID().slice(0, 8);
    if (!taken.has(id)) return id;
  }
  return crypto.randomUUID();
}

/** A new session id (a random v4 UUID). */
export function generateSessionId(): string {
  return webCrypto().randomUUID();
}
