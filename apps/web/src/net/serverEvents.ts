// Decoding of the server's WebSocket messages. Development builds check every event against the
// protocol's schema and log and drop an invalid one, so a server and web app that disagree show it
// at once; production builds trust the server that served the page and only parse. The schema
// check is loaded only in development (loadEventCheck): the production bundle carries no schema
// code (see the protocol's values.ts).

import type { ServerEvent } from '@canopy/protocol';

export type EventWarning = (message: string, data: string) => void;

/** The first problem of a decoded message against the `ServerEvent` schema; undefined when valid. */
export type EventCheck = (value: unknown) => string | undefined;

export interface EventDecoderOptions {
  /** Checks each event (development builds); without it, messages are only parsed. */
  check?: EventCheck;
  /** Where problems are reported; console.warn by default. */
  warn?: EventWarning;
}

/** Returns a function from a message's text to the event, or undefined for a message to drop. */
export function createEventDecoder(options: EventDecoderOptions): (data: string) => ServerEvent | undefined {
  const { check } = options;
  const warn = options.warn ?? ((message: string, data: string) => console.warn(message, data));
  return (data) => {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      if (check) warn('canopy: dropped a server message that is not JSON', data);
      return undefined;
    }
    if (!check) return value as ServerEvent;
    const problem = check(value);
    if (problem === undefined) return value as ServerEvent;
    warn(`canopy: dropped an invalid server event (${problem})`, data);
    return undefined;
  };
}

/**
 * The development build's event check, or undefined in a production build. Vite replaces
 * `import.meta.env.DEV` with false there, so the import below is dead code and the protocol's
 * schemas are not bundled.
 */
export function loadEventCheck(): Promise<EventCheck | undefined> {
  if (!import.meta.env.DEV) return Promise.resolve(undefined);
  return import('@canopy/protocol').then(
    ({ serverEventValidator }) =>
      (value) =>
        serverEventValidator.firstError(value),
  );
}
