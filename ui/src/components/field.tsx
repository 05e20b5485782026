/** A labelled text input bound to a value: the form field every page uses. */

export interface FieldProps {
  label: string;
  value: string;
  onValue: (value: string) => void;
  /** An error for this field (from the API's `issues`), shown under it. */
  error?: string | undefined;
  name?: string;
  type?: "text" | "password" | "number" | "search" | "url" | "email";
  placeholder?: string;
  autocomplete?: string;
  inputMode?: "text" | "numeric" | "decimal" | "url" | "email" | "search";
  pattern?: string;
  required?: boolean;
  disabled?: boolean;
  readOnly?: boolean;
  autoFocus?: boolean;
}

export function Field(
  { label, value, onValue, error, ...input }: FieldProps,
) {
  return (
    <label>
      {label}
      <input
        name={input.name}
        // Preact types each input type's attributes apart; these all take text.
        type={(input.type ?? "text") as "text"}
        placeholder={input.placeholder}
        autocomplete={input.autocomplete}
        inputMode={input.inputMode}
        pattern={input.pattern}
        required={input.required}
        disabled={input.disabled}
        readOnly={input.readOnly}
        autoFocus={input.autoFocus}
        value={value}
        aria-invalid={error ? true : undefined}
        onInput={(e) => onValue((e.target as HTMLInputElement).value)}
      />
      {error && <span class="field-error">{error}</span>}
    </label>
  );
}
