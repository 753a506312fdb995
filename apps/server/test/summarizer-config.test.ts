import { describe, expect, it } from 'vitest';
import { checkConfigFile, loadSummarizers } from '../src/config';
import { HOLD_SUMMARIZER_ID } from '../src/test-summarizer';

describe('loadSummarizers', () => {
  it('offers the offline summariser alone, as the default, with no configuration', async () => {
    const loaded = await loadSummarizers(checkConfigFile({}), {});
    expect(loaded.summarizers.map((s) => s.id)).toEqual(['offline']);
    expect(loaded).toMatchObject({ defaultId: 'offline', problems: [] });
  });

  it('adds an OpenAI-compatible server from the config file and makes it the default when named', async () => {
    const config = checkConfigFile({
      summarizer: {
        default: 'llm:local/qwen',
        llm: { provider: 'local', model: 'qwen', baseUrl: 'http://127.0.0.1:11434/v1' },
      },
    });
    const loaded = await loadSummarizers(config, {});
    expect(loaded.summarizers.map((s) => s.id)).toEqual(['offline', 'llm:local/qwen']);
    expect(loaded.defaultId).toBe('llm:local/qwen');
  });

  it('reads the CANOPY_SUMMARY_* variables', async () => {
    const loaded = await loadSummarizers(checkConfigFile({}), {
      CANOPY_SUMMARY_PROVIDER: 'local',
      CANOPY_SUMMARY_MODEL: 'llama',
      CANOPY_SUMMARY_BASE_URL: 'http://127.0.0.1:8080/v1',
    });
    expect(loaded.summarizers.map((s) => s.id)).toEqual(['offline', 'llm:local/llama']);
  });

  it('reports a bad summarizer block as a problem and still offers the offline summariser', async () => {
    const loaded = await loadSummarizers(checkConfigFile({ summarizer: 'gpt' }), {});
    expect(loaded.summarizers.map((s) => s.id)).toEqual(['offline']);
    expect(loaded.problems).toEqual(['summarizer must be an object']);
  });

  it('offers the hold summariser only when CANOPY_TEST_SUMMARIZER=hold', async () => {
    expect(
      (await loadSummarizers({}, { CANOPY_TEST_SUMMARIZER: 'yes' })).summarizers.map((s) => s.id),
    ).toEqual(['offline']);
    expect(
      (await loadSummarizers({}, { CANOPY_TEST_SUMMARIZER: 'hold' })).summarizers.map((s) => s.id),
    ).toEqual(['offline', HOLD_SUMMARIZER_ID]);
  });
});
