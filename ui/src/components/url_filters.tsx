/**
 * A filter form's values, starting from the page's URL (where filters
 * live, so a view can be shared), and a labelled text field for each.
 */
import { useState } from "preact/hooks";
import { route } from "../router.ts";
import { Field } from "./field.tsx";

export function useUrlFilters<K extends string>(keys: readonly K[]) {
  const params = route.value.params;
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(keys.map((k) => [k, params.get(k) ?? ""])),
  );
  const set = (name: K, value: string) =>
    setValues((now) => ({ ...now, [name]: value }));
  const field = (name: K, label: string, placeholder?: string) => (
    <Field
      label={label}
      name={name}
      value={values[name] ?? ""}
      onValue={(value) => set(name, value)}
      {...(placeholder !== undefined && { placeholder })}
    />
  );
  return { values, set, field };
}
