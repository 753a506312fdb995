// pi-ai, pi's multi-provider client (@earendil-works/pi-ai 1.6, its `/compat` entry: the request
// functions pi 1.6's own summariser calls), is imported only when an LLM summariser is configured:
// its module graph (every provider's SDK) took about 0.5 s of CPU at every server start (a CPU
// profile of the built server), which a server without an LLM summariser never needs.
import type * as PiAi from '@earendil-works/pi-ai/compat';

let loaded: typeof PiAi | undefined;

/** Imports pi-ai once; every later call answers the same module. */
export async function loadPiAi(): Promise<typeof PiAi> {
  loaded ??= await import('@earendil-works/pi-ai/compat');
  return loaded;
}

/** Whether pi-ai has been imported (tests: a configuration without an LLM never imports it). */
export function isPiAiLoaded(): boolean {
  return loaded !== undefined;
}

/** pi-ai for the synchronous steps of an LLM summariser, which `loadPiAi` always precedes. */
export function piAi(): typeof PiAi {
  if (!loaded) throw new Error('pi-ai is used before loadPiAi() imported it');
  return loaded;
}
