import assert from "node:assert/strict";
import { decideOwnership, ownerHint } from "./ownership.ts";

const ME = "file:objects.d/a.yaml";

Deno.test("decideOwnership follows the loader's takeover rules", async (t) => {
  const cases: [string, boolean, string | undefined, boolean, unknown][] = [
    ["absent: create", false, undefined, true, { action: "create" }],
    ["same manager: write", true, ME, true, { action: "write", force: false }],
    ["no manager: adopt", true, "", true, {
      action: "write",
      force: false,
      note: "Adopted",
    }],
    ["bootstrap: take over", true, "bootstrap", true, {
      action: "write",
      force: true,
      note: "TakenOver",
    }],
    ["another file: move", true, "file:objects.d/b.yaml", true, {
      action: "write",
      force: true,
      note: "Moved",
    }],
    ["api: refuse", true, "api", true, {
      action: "refuse",
      reason: "ManagedByOther",
    }],
    ["system: refuse", true, "system", true, {
      action: "refuse",
      reason: "ManagedByOther",
    }],
    ["integration: refuse", true, "integration:cf", true, {
      action: "refuse",
      reason: "ManagedByOther",
    }],
    ["without takeover, bootstrap stays", true, "bootstrap", false, {
      action: "refuse",
      reason: "ManagedByOther",
    }],
    ["apply -f never takes over files", true, "file:kudurru.yaml", false, {
      action: "refuse",
      reason: "ManagedByOther",
    }],
  ];
  for (const [name, exists, owner, takeover, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(
        decideOwnership({ exists, owner, manager: ME, takeover }),
        want,
      );
    });
  }
});

Deno.test("decideOwnership: a write through the API (apply -f) takes over the first boot's defaults, not files", () => {
  const api = (owner: string) =>
    decideOwnership({ exists: true, owner, manager: "api", takeover: false });
  assert.deepEqual(api("bootstrap"), {
    action: "write",
    force: true,
    note: "TakenOver",
  });
  assert.deepEqual(api("file:objects.d/a.yaml"), {
    action: "refuse",
    reason: "ManagedByOther",
  });
  assert.deepEqual(api("system"), {
    action: "refuse",
    reason: "ManagedByOther",
  });
});

Deno.test("decideOwnership leaves objects of a protected file alone", () => {
  const d = decideOwnership({
    exists: true,
    owner: "file:objects.d/b.yaml",
    manager: ME,
    takeover: true,
    ownerProtected: (o) => o === "file:objects.d/b.yaml",
  });
  assert.deepEqual(d, { action: "refuse", reason: "OwnerUnreadable" });
});

Deno.test("ownerHint names the owner and what to do", () => {
  assert.match(
    ownerHint("integration:cf", "DNSZone/z", "a.yaml"),
    /integration "cf"/,
  );
  assert.match(ownerHint("api", "DNSZone/z", "a.yaml"), /API or the UI/);
});
