/**
 * The access page: users, role bindings, API tokens, the caller's own
 * account (sessions, second factor) and the audit log, one at a time as
 * `access/<part>`. A part the caller may not use is not offered; the API
 * refuses it anyway.
 */
import "./access.css";
import type { ComponentType } from "preact";
import { href, route } from "../router.ts";
import { can, session } from "../session.ts";
import { strings } from "../strings.ts";
import { AuditTab } from "./access/audit.tsx";
import { BindingsTab } from "./access/bindings.tsx";
import { SessionsPanel } from "./access/sessions.tsx";
import { TokensTab } from "./access/tokens.tsx";
import { TotpPanel } from "./access/totp.tsx";
import { UsersTab } from "./access/users.tsx";

interface Part {
  path: string;
  label: string;
  show: () => boolean;
  Page: ComponentType;
}

function AccountTab() {
  return (
    <>
      {/* A provider's user has its second factor at the provider. */}
      {session.value?.provider === undefined && <TotpPanel />}
      <SessionsPanel />
    </>
  );
}

const PARTS: Part[] = [
  {
    path: "users",
    label: strings.access.users,
    show: () => can("users", "list"),
    Page: UsersTab,
  },
  {
    path: "bindings",
    label: strings.access.bindings,
    show: () => can("rolebindings", "list"),
    Page: BindingsTab,
  },
  {
    // Everyone may make and revoke tokens of their own.
    path: "tokens",
    label: strings.access.tokens,
    show: () => true,
    Page: TokensTab,
  },
  {
    // Passwords, second factors and sessions are a user's, not a service
    // account's.
    path: "account",
    label: strings.access.account,
    show: () => session.value?.kind === "User",
    Page: AccountTab,
  },
  {
    path: "audit",
    label: strings.access.audit,
    show: () => can("audit", "list"),
    Page: AuditTab,
  },
];

export function AccessPage() {
  const t = strings.access;
  const wanted = route.value.path.split("/")[1] ?? "";
  const parts = PARTS.filter((p) => p.show());
  const part = parts.find((p) => p.path === wanted) ?? parts[0];
  return (
    <div class="access-page">
      <h1>{t.title}</h1>
      <nav class="access-parts" aria-label={t.tabs}>
        <ul>
          {parts.map((p) => (
            <li key={p.path}>
              <a
                href={href(`access/${p.path}`)}
                aria-current={p === part ? "page" : undefined}
              >
                {p.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {part ? <part.Page key={part.path} /> : <p>{t.nothing}</p>}
    </div>
  );
}
