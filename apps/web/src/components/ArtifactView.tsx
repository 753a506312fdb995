// One oh-my-pi artifact (`artifact://N`, a tool output saved beside the session): loaded when
// opened, shown as text, with a link that opens the text as the server sent it in a tab of its own.
// The text is fetched with the access token's header and the link is an object URL of it (a link to
// the API would need a credential the browser sends on its own: docs/safety.md#access).

import { useEffect, useMemo, useState } from 'react';
import type { ArtifactText } from '../net/api';
import { useAppStore } from '../store/context';
import { formatBytes } from '../lib/format';
import { Pre } from './Markdown';

export function ArtifactView({ sessionId, artifactId }: { sessionId: string; artifactId: string }) {
  const [artifact, setArtifact] = useState<ArtifactText | null>(null);
  const [error, setError] = useState<string | null>(null);
  const store = useAppStore();
  const load = (): Promise<ArtifactText | null> => {
    if (artifact) return Promise.resolve(artifact);
    return store
      .getState()
      .loadArtifact(sessionId, artifactId)
      .then(
        (loaded) => {
          setArtifact(loaded);
          setError(null);
          return loaded;
        },
        (cause: unknown) => {
          setError(cause instanceof Error ? cause.message : String(cause));
          return null;
        },
      );
  };
  const textUrl = useMemo(
    () =>
      artifact ? URL.createObjectURL(new Blob([artifact.text], { type: 'text/plain;charset=utf-8' })) : null,
    [artifact],
  );
  useEffect(() => () => void (textUrl && URL.revokeObjectURL(textUrl)), [textUrl]);
  return (
    <details
      className="block"
      data-testid="detail.artifact"
      data-artifact-id={artifactId}
      onToggle={(e) => {
        if ((e.target as HTMLDetailsElement).open && !error) void load();
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
          href={textUrl ?? '#'}
          target="_blank"
          rel="noreferrer"
          data-testid="detail.artifact-link"
          onClick={(e) => {
            e.stopPropagation();
            if (textUrl) return;
            // Not loaded yet: load it, then open it (still within the click's activation).
            e.preventDefault();
            void load().then((loaded) => {
              if (loaded) openText(loaded.text);
            });
          }}
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

/** Opens `text` in a new tab from an object URL, released once the tab had time to load it. */
function openText(text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  window.open(url, '_blank');
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
