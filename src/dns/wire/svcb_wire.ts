/**
 * SVCB and HTTPS record data in wire format (RFC 9460 §2.2): priority, an
 * uncompressed target, then the SvcParams in increasing key order, each as
 * key, length, value (§7 for the value formats).
 */
import type { SvcbRdata, SvcParam } from "../rdata.ts";
import { writeIpv4, writeIpv6 } from "./address_wire.ts";
import { type MessageWriter, UNCOMPRESSED } from "./message_writer.ts";

/** SvcParamKey codes (RFC 9460 §14.3.2). */
export const SVC_PARAM_KEY = {
  mandatory: 0,
  alpn: 1,
  "no-default-alpn": 2,
  port: 3,
  ipv4hint: 4,
  ech: 5,
  ipv6hint: 6,
  dohpath: 7,
} as const;

const utf8 = new TextEncoder();

/** The wire key code of a param. */
export function svcParamKeyCode(param: SvcParam): number {
  return param.key === "generic" ? param.code : SVC_PARAM_KEY[param.key];
}

/** Writes SVCB/HTTPS data; params are sorted here, the input is not changed. */
export function writeSvcbRdata(w: MessageWriter, rdata: SvcbRdata): void {
  w.u16(rdata.priority);
  w.name(rdata.target, UNCOMPRESSED);
  const params = rdata.params.length < 2 ? rdata.params : [...rdata.params]
    .sort((a, b) => svcParamKeyCode(a) - svcParamKeyCode(b));
  for (const param of params) {
    w.u16(svcParamKeyCode(param));
    const lengthAt = w.reserve(2);
    writeParamValue(w, param);
    w.setU16(lengthAt, w.pos - lengthAt - 2);
  }
}

function writeParamValue(w: MessageWriter, param: SvcParam): void {
  switch (param.key) {
    case "mandatory":
      for (const key of [...param.keys].sort((a, b) => a - b)) w.u16(key);
      return;
    case "alpn":
      for (const id of param.ids) w.charString(id, "SVCB alpn id");
      return;
    case "no-default-alpn":
      return;
    case "port":
      w.u16(param.port);
      return;
    case "ipv4hint":
      for (const address of param.addresses) writeIpv4(w, address);
      return;
    case "ech":
      w.bytes(param.config);
      return;
    case "ipv6hint":
      for (const address of param.addresses) writeIpv6(w, address);
      return;
    case "dohpath":
      w.bytes(utf8.encode(param.template));
      return;
    case "generic":
      w.bytes(param.value);
      return;
  }
}
