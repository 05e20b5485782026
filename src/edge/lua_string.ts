/**
 * Lua string literals for rendered dnsdist configuration. Lua 5.1 (LuaJIT,
 * what dnsdist 1.7 embeds) reads `\ddd` as the byte with that decimal value
 * (Lua 5.1 manual §2.1), so any byte can be written without a quote,
 * backslash, newline or `]]` of its own ever reaching the Lua parser: text
 * from a file cannot end the string early.
 */

/**
 * Bytes that stand for themselves in a double-quoted literal: nothing Lua
 * treats specially there (brackets matter only in long strings).
 */
const PLAIN = /^[A-Za-z0-9 ._:/@+=,$%#*~^[\]-]$/;

const encoder = new TextEncoder();

/**
 * A double-quoted Lua literal for `value`: printable safe ASCII as is, every
 * other byte as a three-digit `\ddd` (always three digits, so a digit after
 * it is never read as part of the escape).
 */
export function luaString(value: string | Uint8Array): string {
  const bytes = typeof value === "string" ? encoder.encode(value) : value;
  let out = '"';
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && PLAIN.test(ch) ? ch : escapeByte(byte);
  }
  return out + '"';
}

/** A literal with every byte escaped: for secrets, whose bytes are anything. */
export function luaBytes(bytes: Uint8Array): string {
  let out = '"';
  for (const byte of bytes) out += escapeByte(byte);
  return out + '"';
}

function escapeByte(byte: number): string {
  return `\\${String(byte).padStart(3, "0")}`;
}
