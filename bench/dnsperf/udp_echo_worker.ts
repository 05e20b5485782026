/**
 * A trivial wire-level UDP responder in a Worker: the ceiling that
 * `udp_ceiling.ts` measures for the socket loop alone. It answers every
 * query with the query itself, QR set, in one of several loop shapes.
 */

/** How the receive loop is shaped. */
export type EchoShape =
  /** One receive at a time, the send awaited before the next receive. */
  | "await-send"
  /** One receive at a time, the send not awaited. */
  | "one-loop"
  /** `loops` receive loops on one socket, sends not awaited. */
  | "loops";

interface Start {
  shape: EchoShape;
  loops: number;
}

interface WorkerScope {
  onmessage: ((event: MessageEvent<Start>) => void) | null;
  postMessage(message: { port: number }): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.onmessage = (event) => {
  const { shape, loops } = event.data;
  const conn = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  const ignore = () => {};

  async function loop(awaitSend: boolean) {
    const buf = new Uint8Array(65535);
    for (;;) {
      const [query, from] = await conn.receive(buf);
      query[2]! |= 0x80;
      if (awaitSend) await conn.send(query, from).catch(ignore);
      else conn.send(query.slice(), from).catch(ignore);
    }
  }

  if (shape === "await-send") loop(true);
  else for (let i = 0; i < (shape === "loops" ? loops : 1); i++) loop(false);
  scope.postMessage({ port: (conn.addr as Deno.NetAddr).port });
};
