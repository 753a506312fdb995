import type { LlmTarget } from '@canopy/summarizer';

/** A model found in pi's or oh-my-pi's own configuration (zero setup), offered when it can be used. */
export interface DiscoveredModel {
  source: 'pi' | 'omp';
  /** The summariser id it is offered under (`llm:pi:<provider>/<model>`, `llm:omp:…`). */
  id: string;
  provider: string;
  model: string;
  /** Where the choice of model was read (a path under ~ and the keys), for the page. */
  from: string;
  /** How requests authenticate, said without the secret. */
  credential: string;
  /** Set when it can be used. */
  target?: LlmTarget;
  /** Every credential the agent's files hold (scrubbed wherever they could appear). */
  secrets?: string[];
  /** Why it cannot be used, and what to do about it. */
  problem?: { message: string; fix: string };
}
