// /branch's user-message list: every user message in file order across all branches, the most
// recent selected first; Up/Down wrap, Enter branches, Esc cancels.

import { useEffect, useMemo, useRef, useState } from 'react';
import { useApp, useAppStore } from '../store/context';
import { treeOf, treeVersionOf } from '../store/selectors';

export function BranchPicker() {
  const store = useAppStore();
  const tree = useApp(treeOf);
  const treeVersion = useApp(treeVersionOf);
  const messages = useMemo(() => {
    void treeVersion;
    if (!tree) return [];
    return tree
      .allEntries()
      .filter(
        (e) => e.type === 'message' && e.role === 'user' && e.text.replace(/^user:\s*/, '').trim() !== '',
      )
      .map((e) => ({ id: e.id, text: e.text.replace(/^user:\s*/, '') }));
  }, [tree, treeVersion]);
  const [index, setIndex] = useState(Math.max(0, messages.length - 1));
  const listRef = useRef<HTMLUListElement>(null);

  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [index]);

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
          <ul className="dialog-list" role="listbox" ref={listRef}>
            {messages.map((message, i) => (
              <li
                key={message.id}
                role="option"
                aria-selected={i === index}
                data-testid="branch.item"
                data-entry-id={message.id}
                onClick={() => setIndex(i)}
                onDoubleClick={() => store.getState().requestBranch(message.id)}
              >
                {message.text}
              </li>
            ))}
          </ul>
        )}
        <div className="dialog-foot">
          <span>{messages.length > 0 ? `Message ${index + 1} of ${messages.length}` : ''}</span>
          <span>
            <kbd>↑</kbd>
            <kbd>↓</kbd> choose · <kbd>Enter</kbd> branch into a new session · <kbd>Esc</kbd> cancel
          </span>
        </div>
      </div>
    </div>
  );
}
