/** Test tool: what a stage's Response would look like on the wire. */
import { encodeAnswer } from "../pipeline/answer_encoding.ts";
import type { Request } from "../pipeline/request.ts";
import type { Response } from "../pipeline/response.ts";
import { decodeAnswer, type DecodedAnswer } from "./query_bytes.ts";

/** Encodes `res` for `req` as the handler would and decodes it; null for a drop. */
export function decodeResponse(
  req: Request,
  res: Response,
): DecodedAnswer | null {
  if (res.drop === true) return null;
  if (res.wire !== undefined) return decodeAnswer(res.wire);
  return decodeAnswer(encodeAnswer(req, res.message!));
}
