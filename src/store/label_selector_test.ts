import assert from "node:assert/strict";
import {
  LabelSelectorError,
  matchesLabels,
  parseLabelSelector,
} from "./label_selector.ts";

const labels = { env: "prod", tier: "1", "kudurru.io/zone": "example" };

Deno.test("label selector matches like Kubernetes", async (t) => {
  const cases: [string, boolean][] = [
    ["", true],
    ["env=prod", true],
    ["env==prod", true],
    ["env=dev", false],
    ["env!=dev", true],
    ["missing!=x", true],
    ["env", true],
    ["missing", false],
    ["!missing", true],
    ["!env", false],
    ["env in (dev, prod)", true],
    ["env in (dev)", false],
    ["env notin (dev)", true],
    ["missing notin (dev)", true],
    ["env notin (prod)", false],
    ["kudurru.io/zone=example", true],
    ["env=prod,tier=2", false],
    [" env = prod , tier in (1,2) ", true],
    ["env=", false],
  ];
  for (const [selector, want] of cases) {
    await t.step(JSON.stringify(selector), () => {
      assert.equal(matchesLabels(parseLabelSelector(selector), labels), want);
    });
  }
});

Deno.test("label selector rejects bad syntax naming the selector", async (t) => {
  for (
    const selector of [
      "env in (a",
      "env=a=b",
      "a b",
      ",",
      "env in a",
      "-bad=x",
      "env=(x)",
      "a)",
    ]
  ) {
    await t.step(selector, () => {
      assert.throws(() => parseLabelSelector(selector), (err) => {
        assert.ok(err instanceof LabelSelectorError, String(err));
        assert.ok(
          err.message.startsWith(`Cannot parse label selector "${selector}"`),
          err.message,
        );
        return true;
      });
    });
  }
});
