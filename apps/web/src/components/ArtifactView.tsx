// One oh-my-pi artifact (`artifact://N`, a tool output saved beside the session): loaded when
// opened, shown as text, with a link to the whole file as the server sends it.

import { useState } from 'react';
import { api, type ArtifactText } from '../net/api';
import { formatBytes } from '../lib/format';
import { Pre } from './Markdown';

export function ArtifactView({ sessionId, artifactId }: { sessionId: string; artifactId: string }) {
  const [artifact, setArtifact] = useState<ArtifactText | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    if (artifact || error) return;
    api
      .getArtifact(sessionId, artifactId)
      .then(setArtifact, (cause: unknown) =>
        setError(cause instanceof Error ? cause.message : String(cause)),
      );
  };
  return (
    <details
      className="block"
      data-testid="detail.artifact"
      data-artifact-id={artifactId}
      onToggle={(e) => {
        if ((e.target as HTMLDetailsElement).open) load();
      }}
    >
      <summary>
        artifact://{artifactId}
        {artifact && (
          <span className="mono">
            {' '}
            {artifact.name} · {formatBytes(artifact.size)}
          </span>
        )}{' '}
        <a
          href={api.artifactUrl(sessionId, artifactId)}
          target="_blank"
          rel="noreferrer noopener"
          data-testid="detail.artifact-link"
          onClick={(e) => e.stopPropagation()}
        >
          open
        </a>
      </summary>
      <div className="block-body">
        {error && <div className="notice error">{error}</div>}
        {!artifact && !error && <div className="help">Loading…</div>}
        {artifact && (
          <>
            <Pre text={artifact.text} />
            {artifact.truncated && (
              <div className="help">Only the beginning is shown ({formatBytes(artifact.size)} in all).</div>
            )}
          </>
        )}
      </div>
    </details>
  );
}
