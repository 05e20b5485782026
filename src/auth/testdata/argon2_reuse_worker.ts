/**
 * Hashes the cases it is sent with hash-wasm after reuseArgon2Instances,
 * one after another and without wipeArgon2Memory, and posts the PHC
 * strings (argon2id_test.ts).
 */
import { parentPort } from "node:worker_threads";
import { argon2id } from "hash-wasm";
import { reuseArgon2Instances } from "../argon2id.ts";

interface Case {
  memorySize: number;
  iterations: number;
  parallelism: number;
}

reuseArgon2Instances();
const port = parentPort!;
port.once("message", async (cases: Case[]) => {
  const out: string[] = [];
  for (const [i, c] of cases.entries()) {
    out.push(
      await argon2id({
        ...c,
        password: `password ${i}`,
        salt: new Uint8Array(16).fill(i),
        hashLength: 32,
        outputType: "encoded",
      }),
    );
  }
  port.postMessage(out);
});
