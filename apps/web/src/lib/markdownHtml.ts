// Markdown to sanitised HTML. marked and DOMPurify are a quarter of the page's code to evaluate, and
// nothing on the first screen needs them, so this module is its own chunk: components/Markdown.tsx
// loads it (loadMarkdown) and main.tsx asks for it once the page has started.
import DOMPurify from 'dompurify';
import { marked } from 'marked';

/** Markdown to HTML, not yet safe to show. */
export function markdownToHtml(text: string): string {
  return marked.parse(text, { async: false, gfm: true, breaks: false });
}

/** HTML made safe to put in the page. */
export function safeHtml(raw: string): string {
  // Session content is untrusted (it came from a model or a tool): sanitise before it reaches the DOM.
  return DOMPurify.sanitize(raw, { USE_PROFILES: { html: true } });
}

export function markdownToSafeHtml(text: string): string {
  return safeHtml(markdownToHtml(text));
}
