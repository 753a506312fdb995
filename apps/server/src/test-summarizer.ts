import { abortError, type Summarizer } from '@canopy/summarizer';

/** The id of the summariser that CANOPY_TEST_SUMMARIZER=hold adds. */
export const HOLD_SUMMARIZER_ID = 'test-hold';

/**
 * For end-to-end tests only (offered when CANOPY_TEST_SUMMARIZER=hold): streams a first sentence,
 * then never finishes until aborted, so a test can see the progress and abort it without timing.
 */
export function createHoldSummarizer(): Summarizer {
  return {
    id: HOLD_SUMMARIZER_ID,
    label: 'Test: holds until aborted',
    summarize: (entries, { signal, onProgress }) =>
      new Promise((_resolve, reject) => {
        if (signal.aborted) {
          reject(abortError());
          return;
        }
        onProgress?.({ phase: 'preparing', fraction: 0 });
        const text = `Summarising ${entries.length} entries; this one waits for Esc.`;
        onProgress?.({ phase: 'generating', delta: text, tokens: Math.ceil(text.length / 4) });
        signal.addEventListener('abort', () => reject(abortError()), { once: true });
      }),
  };
}
