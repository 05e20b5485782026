import assert from "node:assert/strict";
import { writeIpv4, writeIpv6 } from "./address_wire.ts";
import { MessageWriter } from "./message_writer.ts";

function octets(write: (w: MessageWriter) => void): number[] {
  const w = new MessageWriter();
  w.reset();
  write(w);
  return [...w.finish()];
}

Deno.test("writeIpv6 writes every text form as 16 octets", async (t) => {
  const rows: [string, string][] = [
    ["::", "0000 0000 0000 0000 0000 0000 0000 0000"],
    ["::1", "0000 0000 0000 0000 0000 0000 0000 0001"],
    ["2001:db8::", "2001 0db8 0000 0000 0000 0000 0000 0000"],
    ["1:2:3:4:5:6:7:8", "0001 0002 0003 0004 0005 0006 0007 0008"],
    ["1:2:3:4:5:6::8", "0001 0002 0003 0004 0005 0006 0000 0008"],
    ["::ffff:192.0.2.1", "0000 0000 0000 0000 0000 ffff c000 0201"],
    ["2001:DB8::A", "2001 0db8 0000 0000 0000 0000 0000 000a"],
  ];
  for (const [text, hex] of rows) {
    await t.step(text, () => {
      const expected = hex.replaceAll(" ", "").match(/../g)!.map((h) =>
        parseInt(h, 16)
      );
      assert.deepEqual(octets((w) => writeIpv6(w, text)), expected);
    });
  }
});

Deno.test("writeIpv6 rejects malformed text", async (t) => {
  const rows = [
    "1::2::3",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7::8",
    "12345::",
    "1:2:3:4:5:6:7",
    "::1.2.3",
    "1.2.3.4::",
    "",
  ];
  for (const text of rows) {
    await t.step(JSON.stringify(text), () => {
      assert.throws(() => octets((w) => writeIpv6(w, text)), TypeError);
    });
  }
});

Deno.test("writeIpv4 writes a dotted quad and rejects anything else", async (t) => {
  await t.step("192.0.2.255", () => {
    assert.deepEqual(octets((w) => writeIpv4(w, "192.0.2.255")), [
      192,
      0,
      2,
      255,
    ]);
  });
  for (const text of ["192.0.2", "192.0.2.256", "192.0.2.1.5", "a.b.c.d"]) {
    await t.step(text, () => {
      assert.throws(() => octets((w) => writeIpv4(w, text)), TypeError);
    });
  }
});
