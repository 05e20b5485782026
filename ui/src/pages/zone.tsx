/**
 * One zone (/zones/<name>): its details and SOA (zones/zone_details.tsx),
 * its records (zones/zone_records.tsx) and its zone file, to download and
 * to import (zones/zone_file.tsx). A change to the records moves the
 * zone's serial and resourceVersion, so the zone is read again after each.
 */
import { useState } from "preact/hooks";
import { ErrorBox } from "../components/error_box.tsx";
import { useApi } from "../components/use_api.ts";
import { href } from "../router.ts";
import { fill, strings } from "../strings.ts";
import type { Zone } from "../zones_model.ts";
import { ZoneDetails } from "./zones/zone_details.tsx";
import { ZoneFilePanel } from "./zones/zone_file.tsx";
import { RecordsPanel } from "./zones/zone_records.tsx";

export function ZonePage({ name }: { name: string }) {
  const t = strings.zones;
  const zone = useApi<Zone>(`dnszones/${encodeURIComponent(name)}`);
  // Bumped by every change to the records: the list and the zone reload.
  const [version, setVersion] = useState(0);
  const changed = () => {
    setVersion((v) => v + 1);
    zone.reload();
  };
  const data = zone.data;
  return (
    <>
      <p>
        <a href={href("zones")}>← {t.back}</a>
      </p>
      <h1>{data?.spec.zoneName ?? name}</h1>
      <ErrorBox error={zone.error} onRetry={zone.reload} />
      {data && (
        <>
          <ZoneDetails zone={data} reload={zone.reload} />
          {data.spec.type === "primary"
            ? (
              <>
                <RecordsPanel zone={data} version={version} changed={changed} />
                <ZoneFilePanel zone={data} changed={changed} />
              </>
            )
            : (
              <p class="muted">
                {data.spec.type === "secondary"
                  ? fill(t.secondaryRecords, { name: data.metadata.name })
                  : fill(t.notPrimary, { type: data.spec.type })}
              </p>
            )}
        </>
      )}
    </>
  );
}
