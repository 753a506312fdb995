import { PROTOCOL_VERSION, serverEventValidator } from '@canopy/protocol';
import { describe, expect, it } from 'vitest';
import { createEventDecoder, loadEventCheck } from './serverEvents';

function recordingDecoder(validate: boolean) {
  const warnings: string[] = [];
  const decode = createEventDecoder({
    check: validate ? (value) => serverEventValidator.firstError(value) : undefined,
    warn: (message) => warnings.push(message),
  });
  return { decode, warnings };
}

describe('createEventDecoder', () => {
  it('passes a valid event through unchanged when validating', () => {
    const { decode, warnings } = recordingDecoder(true);
    const hello = { type: 'hello', protocolVersion: PROTOCOL_VERSION };
    const text = JSON.stringify(hello);
    const decoded = decode(text);
    if (decoded === undefined) throw new Error(`hello was dropped: ${warnings.join('; ')}`);
    expect(decoded).toEqual(JSON.parse(text));
    expect(warnings).toEqual([]);
  });

  it('drops an event that does not match the schema and names the failing path when validating', () => {
    const { decode, warnings } = recordingDecoder(true);
    expect(
      decode(
        JSON.stringify({
          type: 'session_changed',
          sessionId: 'abc',
          source: 'external',
          writerActive: 'yes',
        }),
      ),
    ).toBeUndefined();
    expect(decode(JSON.stringify({ type: 'no_such_event' }))).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^canopy: dropped an invalid server event \(\//);
  });

  it('drops a message that is not JSON, warning only when validating', () => {
    const validating = recordingDecoder(true);
    expect(validating.decode('{"type":')).toBeUndefined();
    expect(validating.warnings).toEqual(['canopy: dropped a server message that is not JSON']);
    const trusting = recordingDecoder(false);
    expect(trusting.decode('{"type":')).toBeUndefined();
    expect(trusting.warnings).toEqual([]);
  });

  it('does not check events when not validating (production builds)', () => {
    const { decode, warnings } = recordingDecoder(false);
    expect(decode('{"type":"no_such_event"}')).toEqual({ type: 'no_such_event' });
    expect(warnings).toEqual([]);
  });

  it('loads the schema check in a development build (vitest runs as one)', async () => {
    const check = await loadEventCheck();
    if (!check) throw new Error('no check in a development build');
    expect(check({ type: 'hello', protocolVersion: PROTOCOL_VERSION })).toBeUndefined();
    expect(check({ type: 'no_such_event' })).toMatch(/^\//);
  });
});
