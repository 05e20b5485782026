/**
 * The query log row's one-click block or allow of its name, for everyone
 * or for one of the client's groups, with undo (quick_rules.ts).
 */
import { useState } from "preact/hooks";
import { ErrorBox } from "../components/error_box.tsx";
import {
  groupScope,
  type QuickAction,
  type QuickScope,
} from "../quick_rules.ts";
import { quickRule, type Undo, undoQuickRule } from "../quick_rules_run.ts";
import type { Entry } from "../querylog_state.ts";
import { can } from "../session.ts";
import { statusGroup } from "../status.ts";
import { fill, strings } from "../strings.ts";

export function QuickActions({ entry }: { entry: Entry }) {
  const t = strings.querylog;
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<{ text: string; undo: Undo[] }>();
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<unknown>();
  if (
    !can("blocklists", "create") || !can("blocklists", "update") ||
    !can("policies", "update")
  ) {
    return null;
  }
  const domain = entry.qname.replace(/\.$/, "");
  // A blocked name is offered its allowing, any other its blocking.
  const action: QuickAction = statusGroup(entry.status) === "blocked"
    ? "allow"
    : "block";
  const scopes: { scope: QuickScope; label: string }[] = [
    { scope: { kind: "everyone" }, label: t.everywhere },
    ...entry.groups.flatMap((g) => {
      const scope = groupScope(g);
      return scope ? [{ scope, label: fill(t.forGroup, { group: g }) }] : [];
    }),
  ];

  const run = async (scope: QuickScope, label: string) => {
    setBusy(true);
    setError(undefined);
    setNote(undefined);
    try {
      const result = await quickRule(domain, action, scope);
      if (result.noPolicy) {
        setNote(fill(t.noPolicy, {
          group: scope.kind === "group"
            ? `${scope.namespace}/${scope.name}`
            : "",
        }));
        return;
      }
      if (result.error) {
        setError(result.error);
        // What ran before the failure can still be taken back.
        if (result.undo.length > 0) {
          setDone({ text: t.partly, undo: result.undo });
        }
        return;
      }
      setDone({
        text: fill(action === "block" ? t.blockedNow : t.allowedNow, {
          domain,
          scope: label,
        }),
        undo: result.undo,
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const undo = async () => {
    if (!done) return;
    setBusy(true);
    try {
      await undoQuickRule(done.undo);
      setDone(undefined);
      setNote(t.undone);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="toolbar" role="group" aria-label={t.quick}>
      {scopes.map(({ scope, label }) => (
        <button
          key={label}
          type="button"
          disabled={busy}
          onClick={() => void run(scope, label)}
        >
          {fill(action === "block" ? t.block : t.allow, { domain })} {label}
        </button>
      ))}
      {done && (
        <span role="status">
          {done.text} {done.undo.length > 0 && (
            <button
              type="button"
              disabled={busy}
              onClick={() => void undo()}
            >
              {t.undo}
            </button>
          )}
        </span>
      )}
      {note && <span role="status">{note}</span>}
      <ErrorBox error={error} />
    </div>
  );
}
