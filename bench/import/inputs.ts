/**
 * The inputs of the import benchmark, written into a temporary directory:
 * a BIND named.conf naming one primary zone whose file holds N records of
 * mixed types, and a Pi-hole directory (pihole.toml, gravity.db) whose
 * gravity table holds N downloaded domains beside a few adlists, domain
 * list entries, groups and clients. The zone file is written in pieces so
 * that making a 1,000,000-record input does not itself need the memory
 * being measured in the importer.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const ZONE = "bench.example";

/**
 * One record line per call: mostly A and AAAA, with CNAME, MX, TXT and SRV
 * mixed in, and every fifth owner given a second A so some RRsets hold
 * more than one record (as real zones do).
 */
function recordLines(i: number): string {
  const host = `h${i}`;
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
      return `${host} IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${
        i & 255
      }\n`;
    case 3:
    case 4:
      return `${host} IN AAAA 2001:db8::${(i & 0xffff).toString(16)}:${
        ((i >> 16) & 0xffff).toString(16)
      }\n`;
    case 5:
      return `${host} IN CNAME h${i - 5}\n`;
    case 6:
      return `${host} IN MX 10 mail${i % 97}.${ZONE}.\n`;
    case 7:
      return `${host} IN TXT "v=spf1 include:_spf.${ZONE} ~all" "n${i}"\n`;
    case 8:
      return `_sip._tcp.${host} IN SRV 10 5 5060 sip${i % 31}.${ZONE}.\n`;
    default:
      // The owner of the previous line (an SRV) is not reused: a second A
      // for the A owner three lines up makes a two-record RRset.
      return `h${i - 9} IN A 10.255.${(i >> 8) & 255}.${i & 255}\n`;
  }
}

/** Writes named.conf and db.bench.example with `records` records; returns named.conf. */
export async function writeBindInputs(
  dir: string,
  records: number,
): Promise<string> {
  const zoneFile = join(dir, `db.${ZONE}`);
  const file = await Deno.open(zoneFile, {
    write: true,
    create: true,
    truncate: true,
  });
  const encoder = new TextEncoder();
  const write = async (text: string) => {
    const bytes = encoder.encode(text);
    for (let at = 0; at < bytes.length;) {
      at += await file.write(bytes.subarray(at));
    }
  };
  try {
    await write(
      `$ORIGIN ${ZONE}.\n$TTL 3600\n` +
        `@ IN SOA ns1 hostmaster 2024010101 3600 900 1209600 300\n` +
        `@ IN NS ns1\n@ IN NS ns2\nns1 IN A 192.0.2.1\nns2 IN A 192.0.2.2\n`,
    );
    // The five lines above are records too.
    let piece = "";
    for (let i = 0; i < records - 5; i++) {
      piece += recordLines(i);
      if (piece.length > 1 << 20) {
        await write(piece);
        piece = "";
      }
    }
    await write(piece);
  } finally {
    file.close();
  }
  const conf = join(dir, "named.conf");
  await Deno.writeTextFile(
    conf,
    `options {\n  directory "${dir}";\n  forwarders { 192.0.2.53; };\n};\n` +
      `zone "${ZONE}" {\n  type primary;\n  file "db.${ZONE}";\n  allow-transfer { none; };\n};\n`,
  );
  return conf;
}

/**
 * Writes `dir/pihole.toml` and `dir/gravity.db` (Pi-hole's own schema, from
 * `schemaSql`) with `domains` rows in gravity; returns `dir`.
 */
export function writePiholeInputs(
  dir: string,
  domains: number,
  schemaSql: string,
): string {
  const db = new DatabaseSync(join(dir, "gravity.db"));
  try {
    db.exec(schemaSql);
    db.exec("BEGIN");
    const group = db.prepare(
      `INSERT INTO "group" (name, description) VALUES (?, ?)`,
    );
    for (const name of ["kids", "iot", "guests"]) {
      group.run(name, `the ${name} devices`);
    }
    const adlist = db.prepare(
      "INSERT INTO adlist (address, comment, type) VALUES (?, ?, ?)",
    );
    const lists = 20;
    for (let i = 0; i < lists; i++) {
      adlist.run(
        `https://lists.example/block-${i}.txt`,
        `list ${i}`,
        i === lists - 1 ? 1 : 0,
      );
    }
    const domain = db.prepare(
      "INSERT INTO domainlist (type, domain, comment) VALUES (?, ?, ?)",
    );
    for (let i = 0; i < 200; i++) {
      const type = i % 4;
      const name = type >= 2
        ? `(^|\\.)ads${i}\\.example$`
        : `exact${i}.example.net`;
      domain.run(type, name, `entry ${i}`);
    }
    const client = db.prepare("INSERT INTO client (ip, comment) VALUES (?, ?)");
    for (let i = 0; i < 50; i++) client.run(`192.168.1.${i + 10}`, `host ${i}`);
    // Group links beyond the Default one the triggers add.
    db.exec(
      "INSERT INTO client_by_group (client_id, group_id) SELECT id, 1 FROM client WHERE id % 3 = 0",
    );
    db.exec(
      "INSERT INTO adlist_by_group (adlist_id, group_id) SELECT id, 2 FROM adlist WHERE id % 2 = 0",
    );
    const gravity = db.prepare(
      "INSERT INTO gravity (domain, adlist_id) VALUES (?, ?)",
    );
    for (let i = 0; i < domains; i++) {
      gravity.run(`ad${i}.tracker${i % 5000}.example.com`, 1 + (i % lists));
    }
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  Deno.writeTextFileSync(
    join(dir, "pihole.toml"),
    `[dns]\n  upstreams = [\n    "192.0.2.53",\n    "192.0.2.54#5353"\n  ]\n` +
      `  hosts = [\n    "192.168.1.2 nas.lan",\n    "192.168.1.3 printer.lan"\n  ]\n` +
      `  cnameRecords = [\n    "files.lan,nas.lan"\n  ]\n` +
      `  domain = "lan"\n  blocking.mode = "NULL"\n` +
      `  cache.size = 10000\n`,
  );
  return dir;
}
