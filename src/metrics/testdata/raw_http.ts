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
