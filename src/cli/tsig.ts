/**
 * `kudurru tsig generate NAME [--algorithm A] [--format bind|knot]`: a new
 * TSIG key (RFC 8945) for zone transfers, printed the way the peer reads
 * it: a BIND `key` statement (named.conf, `dig -k`, `nsupdate -k`), or an
 * entry of Knot's `key:` section. The secret is as long as the algorithm's
 * hash (RFC 8945 §6: a shorter one weakens the MAC), from the system's
 * cryptographic random source; nothing is stored.
 */
import { checkDomainName } from "../dns/name.ts";
import { TSIG_ALGORITHMS, type TsigAlgorithm } from "../dns/tsig/tsig.ts";
import { type Command, parseFlags, UsageError } from "./command.ts";

const FORMATS = ["bind", "knot"] as const;
const KEY_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/;

export const tsigCommand: Command = {
  name: "tsig",
  summary: "Make a TSIG key for zone transfers",
  usage:
    "  kudurru tsig generate NAME [--algorithm hmac-sha256|hmac-sha384|hmac-sha512|hmac-sha1] [--format bind|knot]\n" +
    "  Prints a new key: a BIND key statement (named.conf, dig -k), or with --format knot an entry of Knot's key: section.",
  run(args, io) {
    const { values, positionals } = parseFlags("tsig", args, {
      algorithm: { type: "string" },
      format: { type: "string" },
    }, 2);
    const [sub, name] = positionals;
    if (sub !== "generate") {
      throw new UsageError(
        sub === undefined
          ? "kudurru tsig: name a subcommand: generate"
          : `kudurru tsig: unknown subcommand "${sub}"; the one there is: generate`,
      );
    }
    if (name === undefined) {
      throw new UsageError(
        "kudurru tsig generate: name the key, such as transfer.example.com (peers must use the same name)",
      );
    }
    // Letters, digits, - and _ only: the name goes between quotes in
    // BIND's syntax and bare into Knot's YAML.
    const problem = checkDomainName(name) ??
      (KEY_NAME.test(name)
        ? null
        : "use letters, digits, - and _ between the dots");
    if (problem !== null) {
      throw new UsageError(
        `kudurru tsig generate: the key's name must be a domain name: ${problem}`,
      );
    }
    const algorithm = values.algorithm ?? "hmac-sha256";
    if (!(algorithm in TSIG_ALGORITHMS)) {
      throw new UsageError(
        `kudurru tsig generate: --algorithm takes ${
          Object.keys(TSIG_ALGORITHMS).join(", ")
        }, not "${algorithm}"`,
      );
    }
    const format = values.format ?? "bind";
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(
        `kudurru tsig generate: --format takes bind or knot, not "${format}"`,
      );
    }
    const octets = TSIG_ALGORITHMS[algorithm as TsigAlgorithm].octets;
    const secret = crypto.getRandomValues(new Uint8Array(octets)).toBase64();
    const fqdn = name.endsWith(".") ? name : `${name}.`;
    io.stdout(
      format === "bind"
        ? `key "${fqdn}" {\n\talgorithm ${algorithm};\n\tsecret "${secret}";\n};\n`
        : `key:\n  - id: ${fqdn}\n    algorithm: ${algorithm}\n    secret: ${secret}\n`,
    );
    return Promise.resolve(0);
  },
};
