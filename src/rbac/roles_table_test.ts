import assert from "node:assert/strict";
import { RESOURCES, ROLES, VERBS } from "./permissions.ts";
import {
  roleHelpMarkdownTable,
  rolesMarkdownTable,
  routeSecurityNote,
  verbsMarkdownTable,
} from "./roles_table.ts";

/** The table's lines with the padding squeezed out, for readable assertions. */
function squeezed(table: string): string[] {
  return table.trimEnd().split("\n").map((l) => l.replace(/ +/g, " "));
}

Deno.test("rolesMarkdownTable renders resources down and roles across", () => {
  const lines = squeezed(rolesMarkdownTable());
  assert.equal(
    lines[0],
    "| resource | scope | viewer | operator | admin | auditor | zone-admin | own |",
  );
  assert.equal(lines.length, 2 + RESOURCES.length);
  for (
    const want of [
      "| `dnszones` | zone | get, list | get, list | get, list, create, update, delete | get, list | get, list, create, update, delete | - |",
      "| `dnsrecordsets` | zone | get, list | get, list, create, update, delete | get, list, create, update, delete | get, list | get, list, create, update, delete | - |",
      "| `querylog` | cluster | - | - | get, list, tail, export | get, list, tail, export | - | - |",
      "| `cache` | cluster | - | flush | flush | - | - | - |",
      "| `node` | cluster | get | get | get | get | get | - |",
      "| `tokens` | cluster | - | - | get, list, create, delete | get, list | - | get, list, create, delete |",
    ]
  ) {
    assert.ok(lines.includes(want), want);
  }
});

Deno.test("rolesMarkdownTable is deterministic and padded as deno fmt pads", () => {
  const table = rolesMarkdownTable();
  assert.equal(rolesMarkdownTable(), table);
  const lines = table.trimEnd().split("\n");
  for (const line of lines) assert.equal(line.length, lines[0]!.length, line);
  assert.match(lines[1]!, /^\| -+ \| -+ \|/);
});

Deno.test("rolesMarkdownTable output is what deno fmt writes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const text = [
      rolesMarkdownTable(),
      roleHelpMarkdownTable(),
      verbsMarkdownTable(),
    ].join("\n");
    await Deno.writeTextFile(`${dir}/roles.md`, text);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--check", "roles.md"],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("roleHelpMarkdownTable and verbsMarkdownTable list every role and verb", () => {
  const roles = squeezed(roleHelpMarkdownTable());
  assert.equal(roles.length, 2 + ROLES.length);
  assert.equal(roles[4], "| `admin` | everything |");
  const verbs = squeezed(verbsMarkdownTable());
  assert.equal(verbs.length, 2 + VERBS.length);
  assert.equal(verbs[8], "| `flush` | drop cached answers |");
});

Deno.test("routeSecurityNote says what a route needs and who has it", async (t) => {
  const cases: [Parameters<typeof routeSecurityNote>, string][] = [
    [
      ["dnsrecordsets", "update"],
      "Needs update on dnsrecordsets (cluster or zone scope); roles: admin, operator, zone-admin",
    ],
    [
      ["blocking", "set"],
      "Needs set on blocking (cluster scope); roles: admin, operator",
    ],
    [
      ["querylog", "list"],
      "Needs list on querylog (cluster scope); roles: admin, auditor",
    ],
    [
      ["sessions", "delete"],
      "Needs delete on sessions (cluster scope); roles: admin; anyone may on their own",
    ],
  ];
  for (const [[resource, verb], want] of cases) {
    await t.step(
      `${verb} ${resource}`,
      () => assert.equal(routeSecurityNote(resource, verb), want),
    );
  }
});

Deno.test("routeSecurityNote refuses a pair the table lacks", () => {
  assert.throws(
    () => routeSecurityNote("cache", "get"),
    /no row for get on cache/,
  );
});
