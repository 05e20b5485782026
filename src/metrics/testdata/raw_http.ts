import assert from "node:assert/strict";

/**
 * One HTTP/1.1 request written by hand, for what fetch() will not send (a
 * malformed Host header); returns the response's status code.
 */
export async function rawRequestStatus(
  port: number,
  path: string,
  host: string,
): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buf = new Uint8Array(4096);
    while (!text.includes("\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
    if (status === null) throw new Error(`not an HTTP response: ${text}`);
    return Number(status[1]);
  } finally {
    conn.close();
  }
}

/**
 * Asserts that the listener on `port` answers 400 to Host headers that form
 * no URL, with no error in `lines` (its logger's), and `path` still 200 to
 * a good one. Unguarded, each such request was a 500 and an ERROR line of
 * the client's own text.
 */
export async function assertBadHostRefused(
  port: number,
  path: string,
  lines: readonly string[],
): Promise<void> {
  for (const host of ["a b", "x:99999"]) {
    assert.equal(await rawRequestStatus(port, path, host), 400, host);
  }
  const errors = lines.filter((l) => JSON.parse(l).level === "error");
  assert.deepEqual(errors, []);
  assert.equal(await rawRequestStatus(port, path, "localhost"), 200);
}
