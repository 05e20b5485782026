import assert from "node:assert/strict";
import { backtrackingRisk } from "./regex_safety.ts";

Deno.test("backtrackingRisk refuses nested quantifiers and lets ordinary list regexes pass", async (t) => {
  const cases: [string, boolean][] = [
    ["(a+)+", true],
    ["^(a*)*$", true],
    ["(x+x+)+y", true],
    ["(ab+){2,}", false],
    ["((a+)b)*", false],
    ["(a+a)+", true],
    ["(\\w+\\.)+example\\.com$", false],
    ["^([a-z0-9-]+\\.)+ads\\.", false],
    ["(.+\\.)+x", true],
    ["^ad[sx]?[0-9]*\\.", false],
    ["^(www\\.)?ads?\\.", false],
    ["(^|\\.)doubleclick\\.net$", false],
    ["^track(er|ing)[0-9]+\\.", false],
    ["(?:ab)+", false],
    ["[(+*)]+", false],
    ["\\(a+\\)+", false],
    ["^[a-z]{3,10}\\.top$", false],
  ];
  for (const [source, risky] of cases) {
    await t.step(source, () => {
      assert.equal(backtrackingRisk(source) !== null, risky);
    });
  }
});
