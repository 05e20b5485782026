/**
 * A node:tls socket seen as a StreamConn (tcp_connection.ts), so DoT runs
 * the same sessions as TCP. Reads come from the chunks the socket emitted,
 * with back-pressure: past READ_AHEAD_BYTES the socket is paused, so a
 * client that sends faster than its queries are answered backs up in the
 * kernel as it does on TCP. A write resolves once the socket took the bytes.
 */
import type { Socket } from "node:net";
import type { StreamConn } from "./tcp_connection.ts";

/** Bytes received and not yet read before the socket is paused. */
const READ_AHEAD_BYTES = 64 * 1024;

export class NodeSocketConn implements StreamConn {
  readonly remoteAddr: Deno.NetAddr;
  readonly clientId: string | undefined;
  #socket: Socket;
  #chunks: Uint8Array[] = [];
  #queued = 0;
  #ended = false;
  #wake: (() => void) | null = null;

  constructor(socket: Socket, clientId: string | undefined) {
    this.#socket = socket;
    this.clientId = clientId;
    this.remoteAddr = {
      transport: "tcp",
      // An IPv4 client of a dual-stack socket reads ::ffff:a.b.c.d, as on
      // Deno's own sockets: the same client reads the same on TCP and DoT.
      hostname: socket.remoteAddress ?? "",
      port: socket.remotePort ?? 0,
    };
    socket.on("data", (chunk: Uint8Array) => {
      this.#chunks.push(chunk);
      this.#queued += chunk.length;
      if (this.#queued >= READ_AHEAD_BYTES) socket.pause();
      this.#wakeReader();
    });
    const ended = () => {
      this.#ended = true;
      this.#wakeReader();
    };
    socket.on("end", ended);
    socket.on("close", ended);
    // A reset or a TLS alert: the read loop sees the end, the writes fail.
    socket.on("error", ended);
  }

  async read(buf: Uint8Array): Promise<number | null> {
    while (this.#chunks.length === 0) {
      if (this.#ended) return null;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    const chunk = this.#chunks[0]!;
    const n = Math.min(buf.length, chunk.length);
    buf.set(chunk.subarray(0, n));
    if (n === chunk.length) this.#chunks.shift();
    else this.#chunks[0] = chunk.subarray(n);
    this.#queued -= n;
    if (this.#queued < READ_AHEAD_BYTES && this.#socket.isPaused()) {
      this.#socket.resume();
    }
    return n;
  }

  write(bytes: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.#socket.destroyed) {
        reject(new Deno.errors.BrokenPipe("the connection is closed"));
        return;
      }
      this.#socket.write(bytes, (error) => {
        if (error) reject(error);
        else resolve(bytes.length);
      });
    });
  }

  close(): void {
    this.#ended = true;
    this.#socket.destroy();
    this.#wakeReader();
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
