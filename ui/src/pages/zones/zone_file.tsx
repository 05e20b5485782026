/**
 * The zone as an RFC 1035 master file: a download of GET …/zonefile, and
 * an import in two steps: a dry run that reports what it would write and
 * every line it would skip (and why), then the import itself of the same
 * text. Changing the text asks for a new check.
 */
import { useState } from "preact/hooks";
import { apiUrl, request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import type { ImportReport, Zone } from "../../zones_model.ts";

export function ZoneFilePanel(
  { zone, changed }: { zone: Zone; changed: () => void },
) {
  const t = strings.zones;
  const path = `dnszones/${encodeURIComponent(zone.metadata.name)}/zonefile`;
  const file = `${zone.spec.zoneName.replace(/\.$/, "") || "root"}.zone`;
  return (
    <section class="panel zone-file" aria-labelledby="zone-file">
      <h2 id="zone-file">{t.zoneFile}</h2>
      <div class="toolbar">
        <a class="button" href={apiUrl(path)} download={file}>{t.export}</a>
      </div>
      {can("dnsrecordsets", "create", zone.metadata.name) && (
        <ZoneImport path={path} changed={changed} />
      )}
    </section>
  );
}

function ZoneImport(
  { path, changed }: { path: string; changed: () => void },
) {
  const t = strings.zones;
  const [text, setText] = useState("");
  const [report, setReport] = useState<ImportReport | undefined>();
  const [busy, setBusy] = useState<"check" | "import" | undefined>();
  const [error, setError] = useState<unknown>();

  const send = async (dryRun: boolean) => {
    setBusy(dryRun ? "check" : "import");
    setError(undefined);
    try {
      const answer = await request<ImportReport>("POST", path, {
        body: text,
        contentType: "text/plain",
        ...(dryRun && { query: { dryRun: true } }),
      });
      setReport(answer);
      if (!dryRun) changed();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(undefined);
    }
  };

  const edit = (value: string) => {
    setText(value);
    setReport(undefined);
  };

  const readFile = async (input: HTMLInputElement) => {
    const chosen = input.files?.[0];
    if (chosen) edit(await chosen.text());
  };

  return (
    <form
      class="stack zone-import"
      aria-labelledby="zone-import"
      onSubmit={(e) => {
        e.preventDefault();
        void send(true);
      }}
    >
      <h3 id="zone-import">{t.importTitle}</h3>
      <label>
        {t.importText}
        <textarea
          name="zonefile"
          rows={8}
          spellcheck={false}
          value={text}
          onInput={(e) => edit((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <label>
        {t.importFile}
        <input
          type="file"
          name="zonefile-upload"
          accept=".zone,.txt,.db,text/plain,text/dns"
          onChange={(e) => void readFile(e.target as HTMLInputElement)}
        />
      </label>
      <div class="toolbar">
        <button type="submit" disabled={busy !== undefined || text === ""}>
          {busy === "check" ? t.checking : t.check}
        </button>
        {report?.dryRun && (
          <button
            type="button"
            class="primary"
            disabled={busy !== undefined}
            onClick={() => void send(false)}
          >
            {busy === "import" ? t.importing : t.import}
          </button>
        )}
      </div>
      <ErrorBox error={error} />
      {report && <Report report={report} />}
    </form>
  );
}

function Report({ report }: { report: ImportReport }) {
  const t = strings.zones;
  return (
    <div class="zone-report" role="status" data-testid="import-report">
      <h4>{report.dryRun ? t.report : t.reportDone}</h4>
      <p>
        {fill(report.dryRun ? t.imported : t.importedDone, {
          count: report.imported,
          present: report.alreadyPresent,
        })}
      </p>
      {report.dryRun && <p class="muted">{t.notImported}</p>}
      {report.recordSets.length > 0 && (
        <>
          <h5>{t.recordSets}</h5>
          <ul>
            {report.recordSets.map((s) => (
              <li key={`${s.namespace}/${s.name}`}>
                {s.namespace}/{s.name} ({s.action})
              </li>
            ))}
          </ul>
        </>
      )}
      {report.problems.length > 0 && (
        <>
          <h5>{t.problems}</h5>
          <ul>
            {report.problems.map((p, i) => <li key={i}>{p.message}</li>)}
          </ul>
        </>
      )}
      {report.skippedCount > 0 && (
        <>
          <h5>{fill(t.skipped, { count: report.skippedCount })}</h5>
          <table class="cards">
            <thead>
              <tr>
                <th class="num">{t.line}</th>
                <th>{t.text}</th>
                <th>{t.reason}</th>
              </tr>
            </thead>
            <tbody>
              {report.skipped.map((s) => (
                <tr key={`${s.line} ${s.text}`}>
                  <td data-label={t.line} class="num">{s.line}</td>
                  <td data-label={t.text}>
                    <code>{s.text}</code>
                  </td>
                  <td data-label={t.reason}>{s.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
