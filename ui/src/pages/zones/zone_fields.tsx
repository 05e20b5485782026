/**
 * The fields of a zone form: the new-zone form has them all; editing a
 * zone leaves out its names (an object is not renamed, nor its zoneName
 * changed). Errors come from the API's `issues` (zones_issues.ts).
 */
import { Field } from "../../components/field.tsx";
import { strings } from "../../strings.ts";
import type { SoaField, ZoneForm } from "../../zones_model.ts";

export interface ZoneFieldsProps {
  form: ZoneForm;
  set: (change: Partial<ZoneForm>) => void;
  errors: Record<string, string>;
  /** The object name and zoneName too (a new zone). */
  names: boolean;
}

export function ZoneFields({ form, set, errors, names }: ZoneFieldsProps) {
  const t = strings.zones;
  const soaField = (
    field: SoaField,
    label: string,
    placeholder?: string,
  ) => (
    <Field
      label={label}
      name={field}
      value={form[field]}
      onValue={(v) => set({ [field]: v })}
      error={errors[field]}
      inputMode={field === "mname" || field === "rname" ? "url" : "numeric"}
      placeholder={placeholder ?? t.optional}
    />
  );
  return (
    <>
      {names && (
        <div class="zone-form-grid">
          <Field
            label={t.zoneName}
            name="zoneName"
            value={form.zoneName}
            onValue={(v) => set({ zoneName: v })}
            error={errors.zoneName}
            placeholder={t.zoneNameHint}
            inputMode="url"
            required
          />
          <Field
            label={t.objectName}
            name="name"
            value={form.name}
            onValue={(v) => set({ name: v })}
            error={errors.name}
            placeholder={t.objectNameHint}
            required
          />
        </div>
      )}
      <fieldset class="zone-soa">
        <legend>{t.soa}</legend>
        <p class="muted zone-soa-note">{t.soaDefaults}</p>
        <div class="zone-form-grid">
          {soaField("mname", t.mname, "ns1.home.example.")}
          {soaField("rname", t.rname, t.rnameHint)}
          {soaField("refresh", t.refresh)}
          {soaField("retry", t.retry)}
          {soaField("expire", t.expire)}
          {soaField("minimum", t.minimum)}
        </div>
      </fieldset>
      <div class="zone-form-grid">
        <label>
          {t.nameservers}
          <textarea
            name="nameservers"
            rows={2}
            value={form.nameservers}
            placeholder={t.nameserversHint}
            aria-invalid={errors.nameservers ? true : undefined}
            onInput={(e) =>
              set({ nameservers: (e.target as HTMLTextAreaElement).value })}
          />
          {errors.nameservers && (
            <span class="field-error">{errors.nameservers}</span>
          )}
        </label>
        <Field
          label={t.defaultTTL}
          name="defaultTTL"
          value={form.defaultTTL}
          onValue={(v) => set({ defaultTTL: v })}
          error={errors.defaultTTL}
          inputMode="numeric"
          placeholder={t.optional}
        />
      </div>
    </>
  );
}
