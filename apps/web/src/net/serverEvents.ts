// Decoding of the server's WebSocket messages. Development builds check every event against the
// protocol's schema and log and drop an invalid one, so a server and web app that disagree show it
// at once; production builds trust the server that served the page and only parse.
import { serverEventValidator, type ServerEvent } from '@canopy/protocol';

export type EventWarning = (message: string, data: string) => void;

export interface EventDecoderOptions {
  /** Check each event against the `ServerEvent` schema (on in development builds). */
  validate: boolean;
  /** Where problems are reported; console.warn by default. */
  warn?: EventWarning;
}

/** Returns a function from a message's text to the event, or undefined for a message to drop. */
export function createEventDecoder(options: EventDecoderOptions): (data: string) => ServerEvent | undefined {
  const warn = options.warn ?? ((message: string, data: string) => console.warn(message, data));
  return (data) => {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      if (options.validate) warn('canopy: dropped a server message that is not JSON', data);
      return undefined;
    }
    if (!options.validate) return value as ServerEvent;
    const problem = serverEventValidator.firstError(value);
    if (problem === undefined) return value as ServerEvent;
    warn(`canopy: dropped an invalid server event (${problem})`, data);
    return undefined;
  };
}
