/**
 * Creates a ClientGroup or a Policy by name (in a namespace); the rest is
 * filled in on its card afterwards.
 */
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import { Field } from "../../components/field.tsx";
import {
  collectionPath,
  DEFAULT_NAMESPACE,
  fieldErrors,
  issuesOf,
  type KObject,
  nameProblem,
} from "../../lists_objects.ts";
import { fill, strings } from "../../strings.ts";
import { useAction, WriteError } from "../lists/object_parts.tsx";

const FIELDS = ["metadata.name", "metadata.namespace"];

export function NewObject(
  { plural, kind, title, submit, spec, onCreated }: {
    plural: string;
    kind: string;
    title: string;
    submit: string;
    spec: unknown;
    onCreated: (created: KObject<unknown>) => void;
  },
) {
  const t = strings.groups;
  const [name, setName] = useState("");
  const [namespace, setNamespace] = useState(DEFAULT_NAMESPACE);
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState("");
  const action = useAction();
  const { byField, rest } = fieldErrors(issuesOf(action.error), FIELDS);
  const headingId = `new-${plural}`;

  const create = async () => {
    setDone("");
    const issue = nameProblem(name.trim());
    setProblem(issue);
    if (issue) return;
    const ns = namespace.trim() || DEFAULT_NAMESPACE;
    const made = await action.run(() =>
      request<KObject<unknown>>("POST", collectionPath(plural, ns), {
        body: {
          apiVersion: "kudurru.io/v1alpha1",
          kind,
          metadata: { name: name.trim(), namespace: ns },
          spec,
        },
      })
    );
    if (made) {
      setName("");
      setDone(fill(t.created, { name: made.metadata.name }));
      onCreated(made);
    }
  };

  return (
    <form
      class="panel groups-new"
      aria-labelledby={headingId}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <h3 id={headingId}>{title}</h3>
      <div class="lists-row">
        <Field
          label={t.name}
          name="name"
          value={name}
          error={problem ?? byField["metadata.name"]}
          onValue={setName}
        />
        <Field
          label={t.namespace}
          name="namespace"
          value={namespace}
          error={byField["metadata.namespace"]}
          onValue={setNamespace}
        />
      </div>
      <div>
        <button type="submit" class="primary" disabled={action.busy}>
          {submit}
        </button>
      </div>
      <WriteError error={action.error} issues={rest} />
      {done && <p role="status">{done}</p>}
    </form>
  );
}
