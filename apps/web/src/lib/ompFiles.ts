// oh-my-pi's references to files beside a session, as they appear in entries: images stored as
// `blob:sha256:<hex>` and tool outputs saved as `artifact://N`. Only well-formed references are
// recognised; the server checks them again before reading anything.

const BLOB_REF = /^blob:sha256:([a-f0-9]{64})$/;
const ARTIFACT_REF = /artifact:\/\/([0-9]{1,9})(?![0-9])/g;

/** The hash of a `blob:sha256:<64 hex>` image reference, or undefined for anything else. */
export function blobHashOf(data: string): string | undefined {
  return BLOB_REF.exec(data)?.[1];
}

function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content as unknown[]) {
    if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text;
      if (typeof text === 'string') texts.push(text);
    }
  }
  return texts;
}

/** The artifact numbers a content names (`artifact://N`), each once, in order of appearance. */
export function artifactIdsIn(content: unknown): string[] {
  const ids: string[] = [];
  for (const text of textsOf(content)) {
    for (const match of text.matchAll(ARTIFACT_REF)) {
      const id = String(Number(match[1]));
      if (!ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}
