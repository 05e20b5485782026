/**
 * Generates docs/configuration.md from the settings table, so the page cannot
 * drift from the schema (docs_test.ts fails when it does).
 *
 *     deno run -A src/config/docs.ts
 */
import example from "../../docs/examples/kudurru.yaml" with { type: "text" };
import {
  type ItemField,
  sectionHelp,
  type Setting,
  settingsTable,
} from "./settings_table.ts";

/** Where the generated page lives, relative to the repository root. */
export const CONFIG_DOCS_PATH = "docs/configuration.md";

const INTRO = `# Configuration

<!-- Generated from src/config/schema*.ts by \`deno run -A src/config/docs.ts\`. Do not edit by hand. -->

kudurru reads one YAML file. It looks for it in this order:

1. \`--config FILE\` on the command line;
2. the \`KUDURRU_CONFIG\` environment variable;
3. \`/etc/kudurru/kudurru.yaml\`, if it exists;
4. otherwise it runs on the embedded defaults below.

Every section and key is optional, and unknown keys are errors (with a "did you mean" hint),
so a typo never goes unnoticed. An empty file is a valid configuration, and a section or
key left empty (its keys commented out) counts as not set. Durations are written
like \`30s\`, \`10m\`, \`1h30m\` or \`1800ms\`; sizes like \`512MiB\` or \`10GiB\`. String values may
refer to environment variables: \`name: "\${HOSTNAME}"\`, \`\${VAR:-fallback}\`, and \`$\${\` for a
literal \`\${\`.

## When changes take effect

kudurru reads this file and the \`KUDURRU_*\` variables once, when it starts. **A key edited in
the file takes effect at the next start**: after editing the file, restart kudurru. Nothing watches
the file, and SIGHUP is ignored (it is logged, and the server goes on with what it started with).
The objects in \`objectsDir\` are different: kudurru watches that directory and applies changes
while it runs.

Keys that are not host-only can also be changed through the API (\`PATCH /api/v1/settings\`, see
[api.md](api.md)), unless an environment variable sets them (env-locked). Such a change is kept in
the data directory's state.db and wins over the file until it is removed (\`null\` in a patch);
the environment still wins over both. Keys marked **live** apply at once; the others at the next
start, and the API's answer says so.

\`kudurru config get [KEY]\` shows the file as the next start will read it, not what a running
server uses; when a server runs on the same data directory and started with other values, it says
which. \`kudurru blocking status\` reports what the running server does.

## Machine-dependent defaults

Some defaults depend on the machine: \`node.name\` is the hostname; as root, \`node.dataDir\` is
\`/var/lib/kudurru\` and DNS listens on \`0.0.0.0:53\`; otherwise the data directory is \`./data\`
and DNS listens on \`127.0.0.1:5353\` (binding port 53 needs root or \`CAP_NET_BIND_SERVICE\`;
set \`listeners.dns\` once you have it). \`objectsDir\` is \`objects.d\` next to the file.

## Environment variables

Any key can be set with \`KUDURRU_<SECTION>__<KEY>[__<SUBKEY>…]\`: a double underscore between
path parts, matched case-insensitively against the keys (\`KUDURRU_CACHE__PREFETCH__THRESHOLD=3\`,
\`KUDURRU_LISTENERS__PROXYPROTOCOLFROM=127.0.0.1/32\`). The environment wins over the file.

- Numbers and durations are written as in YAML; booleans as \`true\`/\`false\`, \`yes\`/\`no\` or \`1\`/\`0\`.
- Lists are comma-separated: \`KUDURRU_UPSTREAMS__BOOTSTRAP=1.1.1.1:53,9.9.9.9:53\`. A listener
  list takes addresses: \`KUDURRU_LISTENERS__DNS=0.0.0.0:5353\`.
- Anything else, or anything that starts with \`[\` or \`{\`, is JSON:
  \`KUDURRU_UPSTREAMS__CONDITIONAL='{"corp.example.":"internal-ad"}'\`.
- \`<VARIABLE>_FILE\` reads the value from a file, trailing newline removed: this is how Docker
  and Kubernetes secrets are passed (\`KUDURRU_AUTH__BOOTSTRAP__ADMINPASSWORD_FILE=/run/secrets/admin\`).
- A variable with \`__\` that names no key stops kudurru with an error that suggests the closest one.
- Keys set from the environment are read-only in the UI and API (one source of truth).

\`KUDURRU_DEBUG_CONFIG=yes\` prints the effective configuration at startup, secrets masked;
\`kudurru config get [KEY]\` prints the file's on demand and \`kudurru config schema\` prints the
JSON Schema for editors (\`# yaml-language-server: $schema=kudurru.schema.json\`).

## Logging

Two variables that are not settings of the file set how \`kudurru serve\` logs (one line per event,
on stderr). Their values are read in any case; any other value stops kudurru at startup with an
error.

| Variable | Values | Default |
|---|---|---|
| \`KUDURRU_LOG_LEVEL\` | \`debug\`, \`info\`, \`warn\`, \`error\` | \`info\` |
| \`KUDURRU_LOG_FORMAT\` | \`text\` (logfmt-style), \`json\` (one JSON object a line) | \`text\` |

## Flags

- **host-only**: code-bearing or privileged (addresses, certificate paths, directories); it can
  only be set in the file or the environment, never through the API.
- **secret**: write-only; shown as \`********\` everywhere.
- **env-locked**: only read from the file or the environment; read-only in the UI and API.
- **live**: changed through the API, it applies at once; other keys the API changes apply at the
  next start.

Scope: *node* sections belong to one machine; *cluster* sections are shared by every node of a
cluster.
`;

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

function code(value: unknown): string {
  if (value === undefined) return "";
  const text = JSON.stringify(value);
  return text.includes("`") ? cell(text) : `\`${cell(text)}\``;
}

/**
 * The flags column. "live": changed through the API, the key applies at
 * once (see "When changes take effect"); from the file, at the next start.
 */
function flagsOf(
  s: Pick<
    Setting,
    "hostOnly" | "writeOnly" | "envLocked" | "restartRequired"
  >,
): string {
  return [
    s.hostOnly && "host-only",
    !s.hostOnly && !s.restartRequired && "live",
    s.writeOnly && "secret",
    s.envLocked && "env-locked",
  ].filter(Boolean).join(", ");
}

function typeCell(type: string, allowed: string[] | undefined): string {
  return allowed
    ? `${type}: ${allowed.map((a) => `\`${a}\``).join(", ")}`
    : type;
}

function settingRow(s: Setting): string {
  const def = s.defaultText ?? code(s.default);
  return `| \`${s.key}\` | ${
    cell(typeCell(s.type, s.allowed))
  } | ${def} | \`${s.env}\` | ` +
    `${flagsOf(s)} | ${cell(s.help)} |`;
}

function fieldRow(f: ItemField): string {
  const def = f.required ? "required" : code(f.default);
  return `| \`${f.key}\` | ${cell(typeCell(f.type, f.allowed))} | ${def} | ` +
    `${f.writeOnly ? "secret" : ""} | ${cell(f.help)} |`;
}

function fieldsTable(s: Setting): string[] {
  if (!s.fields?.length) return [];
  return [
    "",
    `Each item of \`${s.key}\`:`,
    "",
    "| Field | Type | Default | Flags | Description |",
    "|---|---|---|---|---|",
    ...s.fields.map(fieldRow),
  ];
}

function sectionDocs(name: string, help: string, rows: Setting[]): string {
  const lines = [
    `## ${name}`,
    "",
    `${help}. Scope: ${rows[0]!.scope}.`,
    "",
    "| Key | Type | Default | Environment | Flags | Description |",
    "|---|---|---|---|---|---|",
    ...rows.map(settingRow),
    ...rows.flatMap(fieldsTable),
  ];
  return lines.join("\n") + "\n";
}

/** The whole docs/configuration.md page. */
export function renderConfigDocs(): string {
  const rows = settingsTable();
  const helps = sectionHelp();
  const sections = [...new Set(rows.map((r) => r.section))].map((name) =>
    sectionDocs(name, helps[name] ?? "", rows.filter((r) => r.section === name))
  );
  const full = [
    "## Full example",
    "",
    "This file is `docs/examples/kudurru.yaml`; a test loads it, so it is always valid.",
    "",
    "```yaml",
    example.trimEnd(),
    "```",
    "",
  ].join("\n");
  return [INTRO, ...sections, full].join("\n");
}

if (import.meta.main) {
  const target = new URL(`../../${CONFIG_DOCS_PATH}`, import.meta.url);
  Deno.writeTextFileSync(target, renderConfigDocs());
}
