import { deepEqual, equal, match } from "node:assert/strict";
import {
  absolute,
  apiManaged,
  emptyZoneForm,
  managedNote,
  managerLabel,
  nameList,
  newZoneBody,
  numberOrText,
  onlyStatusMoved,
  readyOf,
  recordBody,
  removeBody,
  soaText,
  type Zone,
  zoneFormOf,
  zonePatch,
} from "./zones_model.ts";

const zone = (status?: Zone["status"]): Zone => ({
  metadata: { name: "home", managedBy: "api", resourceVersion: "7" },
  spec: { zoneName: "home.test.", type: "primary" },
  ...(status && { status }),
});

Deno.test("readyOf reads the Ready condition", () => {
  deepEqual(
    readyOf(zone({
      conditions: [{
        type: "Ready",
        status: "True",
        reason: "Serving",
        message: "Serving 1 records",
      }],
    })),
    { state: "ready", label: "Ready", message: "Serving 1 records" },
  );
  deepEqual(
    readyOf(zone({
      conditions: [{ type: "Ready", status: "False", reason: "Invalid" }],
    })),
    { state: "not-ready", label: "Not ready: Invalid" },
  );
  equal(readyOf(zone()).state, "pending");
  equal(
    readyOf(zone({ conditions: [{ type: "Ready", status: "Unknown" }] }))
      .state,
    "pending",
  );
});

Deno.test("managerLabel and apiManaged: only the API's objects are changed here", () => {
  equal(managerLabel("api"), "the API");
  equal(managerLabel("file:objects.d/home.yaml"), "file objects.d/home.yaml");
  equal(managerLabel("integration:external-dns"), "integration external-dns");
  equal(managerLabel("bootstrap"), "the first-start defaults");
  equal(managerLabel(undefined), "nobody");
  equal(managerLabel("kubectl"), "kubectl");
  equal(apiManaged("api"), true);
  for (
    const other of ["file:x.yaml", "bootstrap", "integration:x", "", undefined]
  ) {
    equal(apiManaged(other), false, String(other));
  }
});

Deno.test("managedNote says where an object is changed", () => {
  equal(
    managedNote("file:objects.d/home.yaml"),
    "Managed by file objects.d/home.yaml: change it there.",
  );
  match(managedNote("bootstrap"), /first start: declare it in a file/);
});

Deno.test("soaText writes the SOA's fields in zone file order", () => {
  equal(
    soaText({
      mname: "ns.home.test.",
      rname: "admin.home.test.",
      refresh: 7200,
      retry: 900,
      expire: 1209600,
      minimum: 300,
    }),
    "ns.home.test. admin.home.test. 7200 900 1209600 300",
  );
  equal(soaText({ mname: "a.", rname: "b." }), "a. b.");
});

Deno.test("absolute, nameList and numberOrText", () => {
  equal(absolute(" home.test "), "home.test.");
  equal(absolute("home.test."), "home.test.");
  equal(absolute(""), "");
  deepEqual(nameList("ns1.home.test,\nns2.home.test.  ns3.x"), [
    "ns1.home.test.",
    "ns2.home.test.",
    "ns3.x.",
  ]);
  deepEqual(nameList("  "), []);
  equal(numberOrText(""), undefined);
  equal(numberOrText(" 3600 "), 3600);
  equal(numberOrText("1h"), "1h");
});

Deno.test("newZoneBody: a primary zone; empty SOA numbers are left to the server", () => {
  deepEqual(
    newZoneBody({
      ...emptyZoneForm(),
      name: " lab ",
      zoneName: "lab.test",
      mname: "ns.lab.test",
      rname: "admin.lab.test.",
      refresh: "7200",
      nameservers: "ns.lab.test.",
    }),
    {
      metadata: { name: "lab" },
      spec: {
        zoneName: "lab.test.",
        type: "primary",
        soa: {
          mname: "ns.lab.test.",
          rname: "admin.lab.test.",
          refresh: 7200,
        },
        nameservers: ["ns.lab.test."],
      },
    },
  );
  deepEqual(newZoneBody({ ...emptyZoneForm(), name: "x", zoneName: "x." }), {
    metadata: { name: "x" },
    spec: { zoneName: "x.", type: "primary" },
  });
});

Deno.test("zonePatch: a merge patch of what changed; a cleared field is null", () => {
  const before = zoneFormOf({
    ...zone(),
    spec: {
      zoneName: "home.test.",
      type: "primary",
      soa: {
        mname: "ns.home.test.",
        rname: "admin.home.test.",
        refresh: 3600,
        retry: 900,
        expire: 1209600,
        minimum: 300,
      },
      nameservers: ["ns.home.test."],
      defaultTTL: 300,
    },
  });
  equal(before.refresh, "3600");
  equal(before.nameservers, "ns.home.test.");
  deepEqual(
    zonePatch(before, {
      ...before,
      retry: "",
      nameservers: "",
      minimum: "60",
      mname: "ns2.home.test",
    }),
    {
      spec: {
        soa: { mname: "ns2.home.test.", retry: null, minimum: 60 },
        nameservers: null,
      },
    },
  );
  deepEqual(zonePatch(before, { ...before, defaultTTL: "600" }), {
    spec: { defaultTTL: 600 },
  });
  deepEqual(
    zonePatch(before, { ...before, nameservers: "a.home.test b.home.test." }),
    { spec: { nameservers: ["a.home.test.", "b.home.test."] } },
  );
  // Clearing every SOA field removes the SOA (kudurru makes one again).
  deepEqual(
    zonePatch(before, {
      ...before,
      mname: "",
      rname: "",
      refresh: "",
      retry: "",
      expire: "",
      minimum: "",
    }),
    { spec: { soa: null } },
  );
  equal(zonePatch(before, { ...before, refresh: " 3600 " }), undefined);
});

Deno.test("zonePatch: a zone without an SOA gets the one filled in", () => {
  const before = zoneFormOf(zone());
  deepEqual(
    zonePatch(before, {
      ...before,
      mname: "ns.home.test",
      rname: "a.home.test",
    }),
    { spec: { soa: { mname: "ns.home.test.", rname: "a.home.test." } } },
  );
});

Deno.test("onlyStatusMoved: the same generation is the same spec", () => {
  const read = zone();
  read.metadata.generation = 3;
  const statusOnly = {
    ...zone(),
    metadata: { ...read.metadata, resourceVersion: "9" },
  };
  equal(onlyStatusMoved(read, statusOnly), true);
  const specToo = {
    ...zone(),
    metadata: { ...read.metadata, resourceVersion: "9", generation: 4 },
  };
  equal(onlyStatusMoved(read, specToo), false);
  equal(
    onlyStatusMoved(zone(), zone()),
    false,
    "no generation: assume a change",
  );
});

Deno.test("recordBody: ttl only when given, a number when it is one", () => {
  deepEqual(
    recordBody({
      name: " printer.home.test. ",
      type: "a",
      ttl: "",
      data: "192.168.1.20 ",
    }),
    { name: "printer.home.test.", type: "A", data: "192.168.1.20" },
  );
  deepEqual(
    recordBody({ name: "@", type: "MX", ttl: "600", data: "10 mail.x." }),
    { name: "@", type: "MX", ttl: 600, data: "10 mail.x." },
  );
  // Not a number: sent as typed, so the API's message names the field.
  equal(
    recordBody({ name: "a", type: "A", ttl: "soon", data: "" }).ttl,
    "soon",
  );
});

Deno.test("removeBody names the record by name, type and data", () => {
  deepEqual(
    removeBody({
      recordSet: { namespace: "default", name: "home-api" },
      managedBy: "api",
      name: "printer.home.test.",
      type: "A",
      ttl: 300,
      data: "192.168.1.20",
    }),
    { name: "printer.home.test.", type: "A", data: "192.168.1.20" },
  );
});
