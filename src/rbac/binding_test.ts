import assert from "node:assert/strict";
import type { z } from "zod";
import { rbacSchema } from "../config/schema_auth.ts";
import {
  type Binding,
  describeBinding,
  describeGrant,
  describeSubject,
} from "./binding.ts";

type ConfigBinding = z.output<typeof rbacSchema>["bindings"][number];

Deno.test("Binding takes the config's rbac.bindings as they parse", () => {
  // Compile-time: a parsed config binding is a Binding, no conversion.
  const bindings: readonly Binding[] = rbacSchema.parse({
    bindings: [{
      role: "viewer",
      subjects: [{ kind: "Group", name: "corp:staff" }],
    }],
  }).bindings satisfies ConfigBinding[];
  assert.deepEqual(bindings[0]!.scope, { kind: "cluster" });
});

Deno.test("describeBinding names role, scope and subjects", () => {
  assert.equal(
    describeBinding({
      role: "operator",
      scope: { kind: "cluster" },
      subjects: [
        { kind: "Group", name: "corp:ops" },
        {
          kind: "ServiceAccount",
          name: "external-dns",
          namespace: "kube-system",
        },
      ],
    }),
    'operator at cluster for Group "corp:ops", ServiceAccount "kube-system/external-dns"',
  );
  assert.equal(
    describeGrant("zone-admin", { kind: "zone", name: "corp-example" }),
    "zone-admin at zone:corp-example",
  );
  assert.equal(
    describeSubject({ kind: "User", name: "alice" }),
    'User "alice"',
  );
});
