/**
 * Throwaway certificates for the DoT and DoH tests, made at test time with
 * the `openssl` command (Debian ships it; tests run with --allow-run). A CA
 * plus a leaf, never a self-signed leaf: rustls (and Deno's QUIC) reject a
 * CA:TRUE certificate presented as a server certificate.
 */

/** PEM texts: trust `caCert`, serve `cert` with `key`. */
export interface TestCertificates {
  caCert: string;
  cert: string;
  key: string;
}

/** What the leaf certificate is valid for. */
export interface LeafNames {
  /** subjectAltName DNS entries. */
  dns: string[];
  /** subjectAltName IP entries. */
  ip: string[];
}

/**
 * Makes a fresh CA and a leaf signed by it, valid one day, for `names`
 * (default: localhost and 127.0.0.1). Each call makes a new CA, so a leaf from
 * one call does not verify against another call's CA.
 */
export async function makeTestCertificates(
  names: LeafNames = { dns: ["localhost"], ip: ["127.0.0.1"] },
): Promise<TestCertificates> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-certs-" });
  try {
    const at = (file: string) => `${dir}/${file}`;
    const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    await openssl([
      "req",
      "-x509",
      ...ecKey,
      "-nodes",
      "-days",
      "1",
      "-keyout",
      at("ca.key"),
      "-out",
      at("ca.pem"),
      "-subj",
      `/CN=kudurru test CA ${crypto.randomUUID()}`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    await openssl([
      "req",
      ...ecKey,
      "-nodes",
      "-keyout",
      at("leaf.key"),
      "-out",
      at("leaf.csr"),
      "-subj",
      `/CN=${names.dns[0] ?? names.ip[0] ?? "leaf"}`,
    ]);
    const san = [
      ...names.dns.map((n) => `DNS:${n}`),
      ...names.ip.map((ip) => `IP:${ip}`),
    ].join(",");
    await Deno.writeTextFile(
      at("leaf.ext"),
      [
        `subjectAltName=${san}`,
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature",
        "extendedKeyUsage=serverAuth",
      ].join("\n") + "\n",
    );
    await openssl([
      "x509",
      "-req",
      "-in",
      at("leaf.csr"),
      "-days",
      "1",
      "-CA",
      at("ca.pem"),
      "-CAkey",
      at("ca.key"),
      "-CAcreateserial",
      "-extfile",
      at("leaf.ext"),
      "-out",
      at("leaf.pem"),
    ]);
    return {
      caCert: await Deno.readTextFile(at("ca.pem")),
      cert: await Deno.readTextFile(at("leaf.pem")),
      key: await Deno.readTextFile(at("leaf.key")),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function openssl(args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const detail = new TextDecoder().decode(out.stderr).trim();
    throw new Error(`Cannot run "openssl ${args[0]}": ${detail}`);
  }
}
