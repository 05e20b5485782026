/**
 * One question asked by hand over DoT or DoH before a server is loaded:
 * the load generators check neither the certificate nor the answer's
 * data (h2load sees only HTTP statuses), so this proves the endpoint
 * serves the bench certificate and answers the name with the zone's
 * address. It uses kudurru's own upstream clients (DoH there is a POST).
 */
import { parseUpstreamServer } from "../../src/config/upstream_server.ts";
import {
  closeTransport,
  createTransport,
} from "../../src/upstream/transport_factory.ts";
import { decodeResponse, queryMessage } from "../../src/testing/dns_client.ts";

/** The encrypted transports this bench loads. */
export type EncryptedTransport = "dot" | "doh";

/** The DoH endpoint's path on every server here. */
export const DOH_PATH = "/dns-query";

/**
 * Asks `name` A over `transport` on 127.0.0.1:`port`, trusting `caCert`;
 * throws unless the answer holds `address`.
 */
export async function checkAnswer(
  transport: EncryptedTransport,
  port: number,
  caCert: string,
  name: string,
  address: string,
): Promise<void> {
  const server = parseUpstreamServer(
    transport === "dot"
      ? `tls://127.0.0.1:${port}`
      : `https://127.0.0.1:${port}${DOH_PATH}`,
  );
  const client = createTransport(server, {
    address: "127.0.0.1",
    caCerts: [caCert],
  });
  try {
    const bytes = await client.exchange(
      queryMessage(name, "A", { id: 0 }),
      AbortSignal.timeout(5_000),
    );
    const reply = decodeResponse(bytes);
    const data = reply.answers.find((r) => r.type === "A")?.data;
    if (data !== address) {
      throw new Error(
        `answered ${name} A with ${reply.rcode} ${
          String(data)
        }, expected ${address}`,
      );
    }
  } finally {
    await closeTransport(client);
  }
}
