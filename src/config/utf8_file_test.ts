import assert from "node:assert/strict";
import { decodeUtf8, readUtf8File, readUtf8FileSync } from "./utf8_file.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

Deno.test("decodeUtf8 returns UTF-8 text, multi-byte characters included", () => {
  assert.equal(
    decodeUtf8(utf8("name: café 日本 🙂\n")),
    "name: café 日本 🙂\n",
  );
});

Deno.test("decodeUtf8 names the line and column of the first byte that is not UTF-8", () => {
  // "café" saved as Latin-1 on line 2.
  const latin1 = new Uint8Array([...utf8("a: 1\nb: caf"), 0xe9, ...utf8("\n")]);
  assert.throws(
    () => decodeUtf8(latin1),
    /not UTF-8: byte 0xe9 at line 2, column 7/,
  );
});

Deno.test("decodeUtf8 refuses overlong forms, surrogates and cut sequences", () => {
  for (
    const bad of [
      [0xc0, 0xaf], // overlong "/"
      [0xe0, 0x80, 0xaf], // overlong
      [0xed, 0xa0, 0x80], // UTF-16 surrogate
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xe6, 0x97], // cut at the end
      [0x80], // a lone continuation byte
    ]
  ) {
    const bytes = new Uint8Array([...utf8("ok "), ...bad]);
    assert.throws(() => decodeUtf8(bytes), /line 1, column 4/, `${bad}`);
  }
});

Deno.test("readUtf8File and readUtf8FileSync read a file and refuse a Latin-1 one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const good = `${dir}/good.yaml`, bad = `${dir}/bad.yaml`;
    await Deno.writeFile(good, utf8("x: é\n"));
    await Deno.writeFile(bad, new Uint8Array([0x78, 0x3a, 0x20, 0xe9]));
    assert.equal(await readUtf8File(good), "x: é\n");
    assert.equal(readUtf8FileSync(good), "x: é\n");
    await assert.rejects(readUtf8File(bad), /not UTF-8: byte 0xe9/);
    assert.throws(() => readUtf8FileSync(bad), /not UTF-8: byte 0xe9/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
