import { useState, type InputHTMLAttributes } from 'react';

interface TextInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> {
  /** The record's value. */
  value: string;
  /** Called with the text when the user leaves the field (or presses Enter) after changing it. */
  onCommit: (text: string) => void;
}

/**
 * An input that edits a draft and gives it to the record when the user leaves it: the record
 * (and every view of it) changes once per edit, not per keystroke, and a value that changes
 * meanwhile (a reload) shows as soon as the input holds no draft.
 */
export function TextInput({ value, onCommit, onBlur, onKeyDown, ...attributes }: TextInputProps) {
  const [draft, setDraft] = useState<string>();
  return (
    <input
      {...attributes}
      value={draft ?? value}
      onChange={(event) => setDraft(event.target.value)}
      onBlur={(event) => {
        if (draft !== undefined && draft !== value) onCommit(draft);
        setDraft(undefined);
        onBlur?.(event);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') event.currentTarget.blur();
        onKeyDown?.(event);
      }}
    />
  );
}
