// The graph's toolbar: fit, zoom, follow the leaf, centre on the selection, the drag-select tool,
// collapsing expanded runs, and the minimap toggle.

import { useApp, useAppStore } from '../../store/context';

export function GraphControls({
  onFit,
  onZoom,
  onShowLeaf,
  onCenterSelected,
  selectTool,
  onSelectTool,
  minimapOpen,
  onMinimap,
}: {
  onFit: () => void;
  /** Zooms about the centre of the view by this factor. */
  onZoom: (factor: number) => void;
  /** Brings the leaf into view (when "Follow leaf" is switched on). */
  onShowLeaf: () => void;
  onCenterSelected: () => void;
  selectTool: boolean;
  onSelectTool: (on: boolean) => void;
  minimapOpen: boolean;
  onMinimap: (open: boolean) => void;
}) {
  const store = useAppStore();
  const followLeaf = useApp((s) => s.followLeaf);
  const hasExpandedRuns = useApp((s) => s.expandedRuns.size > 0);
  return (
    <div className="graph-controls" role="toolbar" aria-label="Graph view">
      <button type="button" data-testid="graph.fit" title="Fit the whole tree" onClick={onFit}>
        Fit
      </button>
      <button
        type="button"
        data-testid="graph.zoom-in"
        title="Zoom in"
        aria-label="Zoom in"
        onClick={() => onZoom(1.25)}
      >
        +
      </button>
      <button
        type="button"
        data-testid="graph.zoom-out"
        title="Zoom out"
        aria-label="Zoom out"
        onClick={() => onZoom(0.8)}
      >
        −
      </button>
      <button
        type="button"
        data-testid="graph.follow-leaf"
        aria-pressed={followLeaf}
        title="Keep the leaf in view when it moves"
        onClick={() => {
          store.getState().setFollowLeaf(!followLeaf);
          if (!followLeaf) onShowLeaf();
        }}
      >
        Follow leaf
      </button>
      <button
        type="button"
        data-testid="graph.center"
        title="Centre the view on the selected entry"
        onClick={onCenterSelected}
      >
        Center on selected
      </button>
      <button
        type="button"
        data-testid="graph.select-tool"
        aria-pressed={selectTool}
        title="Drag a rectangle to select entries for a summary (or hold Shift while dragging)"
        onClick={() => onSelectTool(!selectTool)}
      >
        Select
      </button>
      {hasExpandedRuns && (
        <button
          type="button"
          data-testid="graph.collapse-runs"
          title="Compress the expanded runs again"
          onClick={() => store.getState().collapseAllRuns()}
        >
          Collapse runs
        </button>
      )}
      <button
        type="button"
        data-testid="graph.minimap-toggle"
        aria-pressed={minimapOpen}
        title={
          minimapOpen
            ? 'Hide the minimap (it shows only while the tree is larger than the view)'
            : 'Show the minimap while the tree is larger than the view'
        }
        onClick={() => onMinimap(!minimapOpen)}
      >
        Minimap
      </button>
    </div>
  );
}
