import assert from "node:assert/strict";
import { policyForm, policyPatch, toggled } from "./policy_form.ts";

Deno.test("policyForm: a spec's fields as the editor's inputs hold them", () => {
  const form = policyForm({
    clientGroupRefs: ["kids"],
    blockListRefs: ["ads", "starter"],
    priority: 10,
    blockMode: "customIP",
    customIPs: ["192.168.1.2", "fd00::2"],
    blockTTL: "5m",
    schedule: { start: "20:00", end: "07:00" },
  });
  assert.deepEqual(form.clientGroupRefs, ["kids"]);
  assert.deepEqual(form.allowListRefs, []);
  assert.equal(form.priority, "10");
  assert.equal(form.allowOnly, false);
  assert.equal(form.customIPs, "192.168.1.2, fd00::2");
  assert.equal(form.upstreamGroup, "");
  assert.equal(form.schedule.on, true);
  assert.equal(policyForm(undefined).priority, "0");
});

Deno.test("policyPatch: empty fields are null (removed), the rest typed", () => {
  const form = policyForm({
    clientGroupRefs: ["default"],
    blockListRefs: ["starter"],
    blockMode: "nxdomain",
    blockTTL: "1m",
  });
  const made = policyPatch({
    ...form,
    blockListRefs: [],
    blockMode: "",
    blockTTL: " ",
    customIPs: "192.168.1.2,  fd00::2 ",
    priority: " -5 ",
    upstreamGroup: " filtered ",
  });
  assert.deepEqual(made, {
    patch: {
      clientGroupRefs: ["default"],
      blockListRefs: null,
      allowListRefs: null,
      priority: -5,
      allowOnly: false,
      blockMode: null,
      customIPs: ["192.168.1.2", "fd00::2"],
      blockTTL: null,
      upstreamGroup: "filtered",
      schedule: null,
    },
  });
});

Deno.test("policyPatch: a schedule switched on is in the patch", () => {
  const form = policyForm({ clientGroupRefs: ["default"] });
  const made = policyPatch({
    ...form,
    schedule: {
      on: true,
      days: ["sat", "sun"],
      start: "09:00",
      end: "21:00",
      tz: "UTC",
    },
  });
  assert.ok("patch" in made);
  assert.deepEqual(made.patch.schedule, {
    weekdays: ["sat", "sun"],
    start: "09:00",
    end: "21:00",
    tz: "UTC",
  });
});

Deno.test("policyPatch: a priority that is no whole number and a bad schedule are issues", () => {
  const form = policyForm(undefined);
  const made = policyPatch({
    ...form,
    priority: "1.5",
    schedule: { ...form.schedule, on: true, start: "8", end: "09:00" },
  });
  assert.deepEqual(made, {
    issues: [
      { path: "spec.priority", message: "A whole number." },
      {
        path: "spec.schedule.start",
        message: "A time of day such as 08:00.",
      },
    ],
  });
  assert.ok("issues" in policyPatch({ ...form, priority: "" }));
});

Deno.test("toggled: adds at the end, removes, never twice", () => {
  assert.deepEqual(toggled(["a", "b"], "c", true), ["a", "b", "c"]);
  assert.deepEqual(toggled(["a", "b"], "a", false), ["b"]);
  assert.deepEqual(toggled(["a", "b"], "a", true), ["b", "a"]);
  assert.deepEqual(toggled([], "x", false), []);
});
