/**
 * The opt-in fast UDP socket of `listeners.ffiSockets`:
 * a libc socket through Deno FFI, with SO_REUSEPORT so that several workers
 * share one address (the kernel spreads datagrams over them by source) and
 * recvmmsg/sendmmsg so that one operation moves a batch of datagrams, where
 * Deno's own socket takes two async ops per query. Needs `--allow-ffi`.
 *
 * Linux only: the constants and struct layouts are those of 64-bit Linux
 * (x86_64 and aarch64 share them). The main thread opens and closes these
 * sockets; a worker receives and sends on the descriptor it is given, and
 * a worker that died is replaced on the same descriptor (no bind to race).
 *
 * Memory safety: the kernel writes into a worker's buffers only during
 * calls made on the worker's own thread (recvmmsg with MSG_DONTWAIT), so a
 * worker's memory is never written once it is gone. The one call that
 * waits, poll(), runs on a thread of its own and writes only into the
 * socket's `wait` struct, which lives in a SharedArrayBuffer the main
 * thread keeps for as long as the socket is open.
 */
import ipaddr from "ipaddr.js";

const AF_INET = 2;
const AF_INET6 = 10;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0x80000;
const SOL_SOCKET = 1;
const SO_RCVBUF = 8;
const SO_REUSEPORT = 15;
const SO_RCVBUFFORCE = 33;
const SO_SNDTIMEO = 21;
const SHUT_RD = 0;
const SHUT_RDWR = 2;
export const MSG_DONTWAIT = 0x40;
const POLLIN = 1;
export const EAGAIN = 11;
export const EINTR = 4;

/** `struct mmsghdr`: a msghdr (56 octets), msg_len, padding. */
export const MMSGHDR_SIZE = 64;
export const MSG_NAMELEN_OFFSET = 8;
export const MSG_IOV_OFFSET = 16;
export const MSG_IOVLEN_OFFSET = 24;
export const MSG_LEN_OFFSET = 56;
/** `struct iovec`: base pointer, length. */
export const IOVEC_SIZE = 16;
/** Room for a `sockaddr_in6` (28 octets), rounded up. */
export const SOCKADDR_SIZE = 32;

const SYMBOLS = {
  socket: { parameters: ["i32", "i32", "i32"], result: "i32" },
  setsockopt: {
    parameters: ["i32", "i32", "i32", "buffer", "u32"],
    result: "i32",
  },
  bind: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  getsockname: { parameters: ["i32", "buffer", "buffer"], result: "i32" },
  getsockopt: {
    parameters: ["i32", "i32", "i32", "buffer", "buffer"],
    result: "i32",
  },
  shutdown: { parameters: ["i32", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  recvmmsg: {
    parameters: ["i32", "buffer", "u32", "i32", "pointer"],
    result: "i32",
  },
  // On a thread of its own: it waits until a datagram arrives.
  poll: {
    parameters: ["buffer", "u64", "i32"],
    result: "i32",
    nonblocking: true,
  },
  sendmmsg: { parameters: ["i32", "buffer", "u32", "i32"], result: "i32" },
  sendto: {
    parameters: ["i32", "buffer", "usize", "i32", "buffer", "u32"],
    result: "isize",
  },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

export type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

let opened: Libc | undefined;

/** Why the fast sockets cannot be used here (the system, a permission). */
export class FfiUnavailableError extends Error {
  override name = "FfiUnavailable";
}

/** The C library's socket calls, loaded once per thread. */
export function libc(): Libc {
  if (opened !== undefined) return opened;
  const { os, arch } = Deno.build;
  if (os !== "linux" || (arch !== "x86_64" && arch !== "aarch64")) {
    throw new FfiUnavailableError(
      `listeners.ffiSockets works on 64-bit Linux only (this is ${os} ${arch}); turn it off`,
    );
  }
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    throw new FfiUnavailableError(
      "listeners.ffiSockets needs --allow-ffi; add it to the command line " +
        "or turn listeners.ffiSockets off",
    );
  }
  opened = Deno.dlopen("libc.so.6", SYMBOLS).symbols;
  return opened;
}

/** The address of `buffer`'s first octet, for the structs the kernel reads. */
export function addressOf(buffer: Uint8Array): bigint {
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(buffer)));
}

/**
 * The receive buffer asked for: a burst of ~5,000 queries. Deno's own
 * socket keeps the system default (~280 queries from one client on Linux's
 * 208 KiB, README "On a busy network").
 */
export const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

/** A bound socket: its descriptor and the port it got. */
export interface LibcUdpSocket {
  fd: number;
  port: number;
  family: "ipv4" | "ipv6";
  /** A `struct pollfd` for the socket (see the memory note above). */
  wait: SharedArrayBuffer;
}

/**
 * Opens a UDP socket on `hostname` (an IP address, as listeners.dns gives
 * it) and `port` (0 picks one); with `reusePort`, other sockets with it
 * may share the address (SO_REUSEPORT). Failures throw the `Deno.errors`
 * class the standard socket would (AddrInUse, PermissionDenied,
 * AddrNotAvailable), so the same messages explain them.
 */
export function openUdpSocket(
  hostname: string,
  port: number,
  reusePort = false,
): LibcUdpSocket {
  if (!ipaddr.isValid(hostname)) {
    throw new FfiUnavailableError(
      `listeners.ffiSockets needs IP addresses in listeners.dns, not "${hostname}"`,
    );
  }
  const ip = ipaddr.parse(hostname);
  const c = libc();
  const family = ip.kind();
  const fd = c.socket(
    family === "ipv4" ? AF_INET : AF_INET6,
    SOCK_DGRAM | SOCK_CLOEXEC,
    0,
  );
  if (fd < 0) throw errnoError("socket", hostname, port);
  try {
    if (reusePort) setIntOption(fd, SO_REUSEPORT, 1, hostname, port);
    enlargeReceiveBuffer(fd, family);
    setSendTimeout(fd, hostname, port);
    const addr = encodeSockaddr(ip.toByteArray(), port);
    if (c.bind(fd, addr, addr.length) !== 0) {
      throw errnoError("bind", hostname, port);
    }
    const length = new Uint32Array([addr.length]);
    if (c.getsockname(fd, addr, u8(length)) !== 0) {
      throw errnoError("getsockname", hostname, port);
    }
    const wait = new SharedArrayBuffer(8);
    const pollfd = new DataView(wait);
    pollfd.setInt32(0, fd, true);
    pollfd.setInt16(4, POLLIN, true);
    return { fd, port: new DataView(addr.buffer).getUint16(2), family, wait };
  } catch (err) {
    c.close(fd);
    throw err;
  }
}

/**
 * Beyond `net.core.rmem_max` only with CAP_NET_ADMIN (root, as on port
 * 53); else the kernel caps it at twice rmem_max, which may be less than
 * the socket has already (rmem_default raised, README "On a busy
 * network"): a throwaway socket tells, and the buffer only ever grows.
 */
function enlargeReceiveBuffer(fd: number, family: "ipv4" | "ipv6"): void {
  const size = u8(new Int32Array([RECEIVE_BUFFER_BYTES]));
  const c = libc();
  if (c.setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, size, 4) === 0) return;
  const probe = c.socket(family === "ipv4" ? AF_INET : AF_INET6, SOCK_DGRAM, 0);
  if (probe < 0) return;
  c.setsockopt(probe, SOL_SOCKET, SO_RCVBUF, size, 4);
  const capped = receiveBufferBytes(probe);
  c.close(probe);
  if (capped > receiveBufferBytes(fd)) {
    c.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, size, 4);
  }
}

/**
 * Longest a send waits for room in a full send buffer (a saturated
 * interface). The socket is blocking, so a send waits for room as NSD's
 * does instead of dropping the answer at once; the bound keeps a wedged
 * interface from stopping the worker for longer.
 */
export const SEND_TIMEOUT_MS = 50;

function setSendTimeout(fd: number, hostname: string, port: number): void {
  // struct timeval: tv_sec, tv_usec (two 64-bit longs).
  const timeval = new BigInt64Array([0n, BigInt(SEND_TIMEOUT_MS * 1000)]);
  if (libc().setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, u8(timeval), 16) !== 0) {
    throw errnoError("setsockopt", hostname, port);
  }
}

/** The send timeout of `fd` in milliseconds (SO_SNDTIMEO). */
export function sendTimeoutMs(fd: number): number {
  const timeval = new BigInt64Array(2);
  const length = new Uint32Array([16]);
  libc().getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, u8(timeval), u8(length));
  return Number(timeval[0]!) * 1000 + Number(timeval[1]!) / 1000;
}

/** The receive buffer the kernel gave `fd` (it counts its overhead: twice what was asked). */
export function receiveBufferBytes(fd: number): number {
  const value = new Int32Array(1);
  const length = new Uint32Array([4]);
  libc().getsockopt(fd, SOL_SOCKET, SO_RCVBUF, u8(value), u8(length));
  return value[0]!;
}

/** Wakes a receive waiting on `fd` (it returns at once from now on). */
export function stopReceiving(fd: number): void {
  // Linux wakes the receivers even of an unconnected UDP socket, though
  // the call itself reports ENOTCONN.
  libc().shutdown(fd, SHUT_RD);
}

/** Closes a socket from openUdpSocket; its worker must be done with it. */
export function closeUdpSocket(fd: number): void {
  const c = libc();
  c.shutdown(fd, SHUT_RDWR);
  c.close(fd);
}

/** A `sockaddr_in` or `sockaddr_in6` for `bytes` (4 or 16) and `port`. */
export function encodeSockaddr(bytes: number[], port: number): Uint8Array {
  const v4 = bytes.length === 4;
  const addr = new Uint8Array(v4 ? 16 : 28);
  const view = new DataView(addr.buffer);
  view.setUint16(0, v4 ? AF_INET : AF_INET6, true);
  view.setUint16(2, port); // network order
  addr.set(bytes, v4 ? 4 : 8);
  return addr;
}

/** Where each client address's text is kept, per socket. */
export class SockaddrText {
  readonly #v4 = new Map<number, string>();
  #lastV6 = new Uint8Array(16);
  #lastV6Text = "";

  /**
   * The address in `names` at `offset` (a sockaddr the kernel wrote), as
   * Deno's standard socket writes it ("127.0.0.1", "::1", "::ffff:1.2.3.4").
   */
  address(names: Uint8Array, offset: number): string {
    if (names[offset] === AF_INET) {
      const key = (names[offset + 4]! << 24 | names[offset + 5]! << 16 |
        names[offset + 6]! << 8 | names[offset + 7]!) >>> 0;
      let text = this.#v4.get(key);
      if (text === undefined) {
        text = `${names[offset + 4]}.${names[offset + 5]}.${
          names[offset + 6]
        }.${names[offset + 7]}`;
        // Bounded: a spoofed flood of sources must not grow it for ever.
        if (this.#v4.size >= 4096) this.#v4.clear();
        this.#v4.set(key, text);
      }
      return text;
    }
    const bytes = names.subarray(offset + 8, offset + 24);
    if (!sameBytes(bytes, this.#lastV6)) {
      this.#lastV6 = bytes.slice();
      this.#lastV6Text = formatIpv6(bytes);
    }
    return this.#lastV6Text;
  }
}

/** The port of the sockaddr at `offset` in `names`. */
export function sockaddrPort(names: Uint8Array, offset: number): number {
  return names[offset + 2]! << 8 | names[offset + 3]!;
}

function formatIpv6(bytes: Uint8Array): string {
  const ip = ipaddr.fromByteArray([...bytes]) as ipaddr.IPv6;
  // Rust's (and so Deno's) text for IPv4-mapped addresses.
  if (ip.isIPv4MappedAddress()) return `::ffff:${ip.toIPv4Address()}`;
  return ip.toRFC5952String();
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function setIntOption(
  fd: number,
  option: number,
  value: number,
  hostname: string,
  port: number,
): void {
  const v = new Int32Array([value]);
  if (libc().setsockopt(fd, SOL_SOCKET, option, u8(v), 4) !== 0) {
    throw errnoError("setsockopt", hostname, port);
  }
}

function u8(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** errno of the last call on this thread that failed. */
export function errno(): number {
  return new Deno.UnsafePointerView(libc().__errno_location()!).getInt32();
}

/** The error of the call that just failed, as Deno's own sockets name it. */
function errnoError(call: string, hostname: string, port: number): Error {
  const code = errno();
  const where = `${call} ${hostname}:${port}`;
  switch (code) {
    case 98:
      return new Deno.errors.AddrInUse(`${where}: address in use (EADDRINUSE)`);
    case 99:
      return new Deno.errors.AddrNotAvailable(
        `${where}: address not available (EADDRNOTAVAIL)`,
      );
    case 1:
    case 13:
      return new Deno.errors.PermissionDenied(
        `${where}: permission denied (errno ${code})`,
      );
    default:
      return new Error(`${where} failed (errno ${code})`);
  }
}
