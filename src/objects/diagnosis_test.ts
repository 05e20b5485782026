import assert from "node:assert/strict";
import { countBySeverity, type Diagnosis, sortDiagnoses } from "./diagnosis.ts";

const d = (source: string, document?: number, message = ""): Diagnosis => ({
  severity: "error",
  reason: "Invalid",
  source,
  ...(document === undefined ? {} : { document }),
  message,
});

Deno.test("sortDiagnoses orders by source, then document, keeping ties in order", () => {
  const sorted = sortDiagnoses([
    d("objects.d/b.yaml", 1),
    d("objects.d/a.yaml", 3, "first"),
    d("kudurru.yaml", 2),
    d("objects.d/a.yaml", 3, "second"),
    d("objects.d/a.yaml"),
  ]);
  assert.deepEqual(
    sorted.map((x) => `${x.source}#${x.document ?? "-"}${x.message}`),
    [
      "kudurru.yaml#2",
      "objects.d/a.yaml#-",
      "objects.d/a.yaml#3first",
      "objects.d/a.yaml#3second",
      "objects.d/b.yaml#1",
    ],
  );
});

Deno.test("countBySeverity reports all three severities", () => {
  const counts = countBySeverity([d("a"), { ...d("b"), severity: "info" }]);
  assert.deepEqual(counts, { error: 1, warning: 0, info: 1 });
});
