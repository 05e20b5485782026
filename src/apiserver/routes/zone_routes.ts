/**
 * A zone's records without the objects that hold them: the flat list, one
 * record added or removed (zone_record_routes.ts), and the zone as an
 * RFC 1035 master file, to download and to import (zone_file_routes.ts);
 * what both share is in zone_route_parts.ts. `{zone}` is the DNSZone
 * object's name (what a record set's zoneRef names, and what a zone-admin
 * binding names).
 *
 * Writes go through the Store as manager "api" into the record sets the
 * API manages for the zone (zone_records.ts): `default/<zone>-api`, then
 * `<zone>-api-2`… once one holds MAX_ENDPOINTS (1,000) endpoints. An import
 * puts one endpoint per RRset there, so a zone of 100,000 RRsets takes
 * 100 record sets, not 100,000 objects. A record that a file's (or an
 * integration's) record set declares is answered 409 `managed_by` naming
 * it, on add and on remove; an import skips it with the same reason.
 *
 * An import is bounded by `limits` (4 MiB, 100,000 records): 413 past
 * either, and nothing is written. The app's own body limit
 * (MAX_BODY_BYTES) applies before this route's.
 */
import type { RoutesTable } from "../routes_table.ts";
import { zoneFileRoutes } from "./zone_file_routes.ts";
import { zoneRecordRoutes } from "./zone_record_routes.ts";
import type { ZoneRoutesDeps } from "./zone_route_parts.ts";

export type { ZoneRoutesDeps } from "./zone_route_parts.ts";

/** The zone routes. */
export function zoneRoutes(deps: ZoneRoutesDeps) {
  const records = zoneRecordRoutes(deps);
  const files = zoneFileRoutes(deps);
  return (routes: RoutesTable): void => {
    records(routes);
    files(routes);
  };
}
