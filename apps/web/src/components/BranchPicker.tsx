// /branch's user-message list: every user message in file order across all branches, the most
// recent selected first; Up/Down wrap, Enter branches, Esc cancels. Only the messages in view are
// in the DOM: a 1 GB session has ~45,000 user messages, and one element each took 4.3 s to open
// the list and 200 ms per arrow key.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { scrollToReveal, visibleRows } from '../layout/virtualRange';
import { formatCount } from '../lib/format';
import { useApp, useAppStore } from '../store/context';
import { treeOf, treeVersionOf } from '../store/selectors';

/** Height of one message in the list (px): `.dialog-list li` is laid out to exactly this. */
const BRANCH_ITEM_HEIGHT = 30;

/** How many messages the list shows at once: all of them, or as many as fit in 60% of the window. */
function rowsInView(count: number): number {
  return Math.min(count, Math.max(3, Math.floor((window.innerHeight * 0.6) / BRANCH_ITEM_HEIGHT)));
}

export function BranchPicker() {
  const store = useAppStore();
  const tree = useApp(treeOf);
  const treeVersion = useApp(treeVersionOf);
  const messages = useMemo(() => {
    void treeVersion;
    if (!tree) return [];
    // One read of each user message's row text (a node reads it from its part's strings).
    const found: { id: string; text: string }[] = [];
    for (const e of tree.allEntries()) {
      if (e.type !== 'message' || e.role !== 'user') continue;
      const text = e.text.replace(/^user:\s*/, '');
      if (text.trim() !== '') found.push({ id: e.id, text });
    }
    return found;
  }, [tree, treeVersion]);
  const [index, setIndex] = useState(Math.max(0, messages.length - 1));
  const listRef = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 0 });

  // The selected message stays in view (the most recent one, at the bottom, when the list opens).
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const top = scrollToReveal(index, list.scrollTop, list.clientHeight, BRANCH_ITEM_HEIGHT);
    if (top !== list.scrollTop) list.scrollTop = top;
    setView({ top: list.scrollTop, height: list.clientHeight });
  }, [index, messages.length]);
  useEffect(() => {
    const list = listRef.current;
    if (!list || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setView({ top: list.scrollTop, height: list.clientHeight }));
    observer.observe(list);
    return () => observer.disconnect();
  }, []);
  const shown = visibleRows(view.top, view.height, BRANCH_ITEM_HEIGHT, messages.length);

  const close = () => store.getState().openBranchPicker(false);

  return (
    <div className="dialog-backdrop" onClick={close}>
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Branch from message"
        data-testid="dialog.branch"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (messages.length === 0) {
            if (e.key === 'Escape' || e.key === 'Enter') close();
            return;
          }
          if (e.key === 'ArrowDown') setIndex((i) => (i + 1) % messages.length);
          else if (e.key === 'ArrowUp') setIndex((i) => (i - 1 + messages.length) % messages.length);
          else if (e.key === 'Enter') store.getState().requestBranch(messages[index]!.id);
          else if (e.key === 'Escape') close();
          else return;
          e.preventDefault();
        }}
        tabIndex={-1}
        ref={(element) => element?.focus()}
      >
        <h2>Branch from Message</h2>
        {messages.length === 0 ? (
          <div className="empty-note">No messages to branch from</div>
        ) : (
          <div
            className="dialog-list"
            ref={listRef}
            onScroll={(e) =>
              setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })
            }
            // A height of its own, never its content's (which is every message's): whole rows, at
            // most 60% of the window, so no message in view is cut in half.
            style={{ height: rowsInView(messages.length) * BRANCH_ITEM_HEIGHT }}
          >
            <ul
              role="listbox"
              aria-label="User messages"
              // The messages out of view are room above and below the ones in the DOM.
              style={{
                paddingTop: shown.start * BRANCH_ITEM_HEIGHT,
                paddingBottom: (messages.length - shown.end) * BRANCH_ITEM_HEIGHT,
              }}
            >
              {messages.slice(shown.start, shown.end).map((message, offset) => {
                const i = shown.start + offset;
                return (
                  <li
                    key={message.id}
                    role="option"
                    aria-selected={i === index}
                    aria-setsize={messages.length}
                    aria-posinset={i + 1}
                    data-testid="branch.item"
                    data-entry-id={message.id}
                    onClick={() => setIndex(i)}
                    onDoubleClick={() => store.getState().requestBranch(message.id)}
                  >
                    {message.text}
                  </li>
                );
              })}
            </ul>
          </div>
        )}
        <div className="dialog-foot">
          <span>
            {messages.length > 0
              ? `Message ${formatCount(index + 1)} of ${formatCount(messages.length)}`
              : ''}
          </span>
          <span>
            <kbd>↑</kbd>
            <kbd>↓</kbd> choose · <kbd>Enter</kbd> branch into a new session · <kbd>Esc</kbd> cancel
          </span>
        </div>
      </div>
    </div>
  );
}
