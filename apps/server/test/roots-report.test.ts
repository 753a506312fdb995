import { describe, expect, it } from 'vitest';
import { sessionRootsReport } from '../src/config';

describe('sessionRootsReport (the start-up line about the session folders)', () => {
  const exists = (path: string) => !path.includes('missing');

  it('names every folder that exists, and warns of each given path that does not', () => {
    const report = sessionRootsReport(['/home/a/sessions', '/home/a/missing', 'one.jsonl'], exists);
    // Before, the line named the missing folder as a source of sessions and nothing warned.
    expect(report.line).toBe('Sessions from: /home/a/sessions, one.jsonl');
    expect(report.warnings).toEqual(['canopy: /home/a/missing does not exist; no sessions are read from it']);
  });

  it('says so when no given path exists', () => {
    const report = sessionRootsReport(['/tmp/missing-1', '/tmp/missing-2'], exists);
    expect(report.line).toBe('Sessions from: nowhere');
    expect(report.warnings).toHaveLength(2);
  });

  it('has no warning when every folder exists', () => {
    expect(sessionRootsReport(['/x', '/y'], exists)).toEqual({ line: 'Sessions from: /x, /y', warnings: [] });
  });
});
