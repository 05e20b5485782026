/** One line on stdout (the lint rules keep console.* out of the project). */
const encoder = new TextEncoder();

export function print(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}
