/** Reads Prometheus text for the metrics tests: one value by name and labels. */

/** A sample's key: its name and its labels sorted ("x{a="1",b="2"}"). */
function keyOf(name: string, labels: Record<string, string>): string {
  const parts = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v}"`);
  return parts.length === 0 ? name : `${name}{${parts.join(",")}}`;
}

/** Every sample of `text`, by key. */
export function parseSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!;
    }
    samples.set(keyOf(m[1]!, labels), Number(m[3]));
  }
  return samples;
}

/** The value of one sample, or undefined when `text` has none. */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return parseSamples(text).get(keyOf(name, labels));
}

/** The `# TYPE` of a metric family. */
export function typeOf(text: string, name: string): string | undefined {
  return new RegExp(`^# TYPE ${name} (\\w+)$`, "m").exec(text)?.[1];
}
