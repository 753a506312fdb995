import { useState } from 'react';

/** Inline label input: Enter saves (empty clears), Escape cancels. */
export function LabelEditor({
  initial,
  onSave,
  onCancel,
}: {
  initial: string;
  onSave: (label: string) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(initial);
  return (
    <span
      className="label-editor"
      onClick={(e) => e.stopPropagation()}
      onDoubleClick={(e) => e.stopPropagation()}
    >
      <input
        type="text"
        data-testid="label.editor"
        aria-label="Label (empty to remove)"
        placeholder="Label (empty to remove)"
        autoFocus
        value={value}
        maxLength={1000}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Enter') {
            e.preventDefault();
            onSave(value);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            onCancel();
          }
        }}
        onBlur={onCancel}
      />
    </span>
  );
}
