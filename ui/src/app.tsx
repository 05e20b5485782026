/**
 * The app: the login gate (login, TOTP step, first-run password change),
 * then the page shell (sections, theme, logout, the default-credentials
 * banner) around the page the route names.
 */
import { useEffect, useState } from "preact/hooks";
import { ErrorBox } from "./components/error_box.tsx";
import { AccessPage } from "./pages/access.tsx";
import { DashboardPage } from "./pages/dashboard.tsx";
import { GroupsPage } from "./pages/groups.tsx";
import { ListsPage } from "./pages/lists.tsx";
import { LoginPage } from "./pages/login.tsx";
import { PasswordPage } from "./pages/password.tsx";
import { QueryLogPage } from "./pages/querylog.tsx";
import { ClientPage } from "./pages/client.tsx";
import { ZonesSection } from "./pages/zones.tsx";
import { SettingsPage } from "./pages/settings.tsx";
import { href, onLinkClick, route } from "./router.ts";
import { loadStatus, logout, session } from "./session.ts";
import { strings } from "./strings.ts";
import { applyTheme, type Theme, theme, THEMES } from "./theme.ts";

/** The sections, in the order the menu shows them. */
const SECTIONS: { path: string; label: string }[] = [
  { path: "", label: strings.app.dashboard },
  { path: "querylog", label: strings.app.querylog },
  { path: "zones", label: strings.app.zones },
  { path: "lists", label: strings.app.lists },
  { path: "groups", label: strings.app.groups },
  { path: "settings", label: strings.app.settings },
  { path: "access", label: strings.app.access },
];

export function App() {
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    loadStatus().catch(setError);
  }, []);
  const status = session.value;
  if (status === undefined) {
    return error
      ? (
        <main>
          <ErrorBox error={error} onRetry={() => location.reload()} />
        </main>
      )
      : <main aria-busy="true">{strings.app.loading}</main>;
  }
  if (!status.authenticated) return <LoginPage />;
  if (status.mustChangePassword) return <PasswordPage />;
  return <Shell />;
}

function Shell() {
  const [menuOpen, setMenuOpen] = useState(false);
  const path = route.value.path;
  const section = path.split("/")[0] ?? "";
  const status = session.value!;
  return (
    <div onClick={onLinkClick}>
      <a
        class="skip"
        href="#content"
        onClick={(e) => {
          // "#content" would resolve against <base>, the app's root: focus
          // this page's content instead.
          e.preventDefault();
          document.getElementById("content")?.focus();
        }}
      >
        {strings.app.skip}
      </a>
      <header class="top">
        <a class="brand" href={href("")}>{strings.app.name}</a>
        <button
          type="button"
          class="menu-button"
          aria-expanded={menuOpen}
          aria-controls="sections"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          {strings.app.menu}
        </button>
        <nav
          id="sections"
          class={`sections${menuOpen ? " open" : ""}`}
          aria-label={strings.app.nav}
        >
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.path}>
                <a
                  href={href(s.path)}
                  aria-current={section === s.path ? "page" : undefined}
                  onClick={() => setMenuOpen(false)}
                >
                  {s.label}
                </a>
              </li>
            ))}
            <li>
              <a href="api/docs" target="_blank" rel="noopener">
                {strings.app.apiDocs}
              </a>
            </li>
          </ul>
        </nav>
        <div class="tools">
          <label>
            <span class="muted">{strings.app.theme}</span>
            <select
              value={theme.value}
              onChange={(e) =>
                applyTheme((e.target as HTMLSelectElement).value as Theme)}
            >
              {THEMES.map((t) => (
                <option key={t} value={t}>{strings.app.themes[t]}</option>
              ))}
            </select>
          </label>
          <span class="muted">{status.user}</span>
          <button type="button" onClick={() => void logout()}>
            {strings.app.logout}
          </button>
        </div>
      </header>
      {status.hasDefaultCredentials && (
        <div class="banner" role="status">{strings.app.defaultCredentials}</div>
      )}
      <main id="content" tabIndex={-1}>
        <Page section={section} path={path} />
      </main>
    </div>
  );
}

function Page({ section, path }: { section: string; path: string }) {
  const rest = decodeURIComponent(path.slice(section.length + 1));
  switch (section) {
    case "clients":
      return rest ? <ClientPage address={rest} /> : <QueryLogPage />;
    case "":
      return <DashboardPage />;
    case "querylog":
      return <QueryLogPage />;
    case "zones":
      return <ZonesSection />;
    case "lists":
      return <ListsPage />;
    case "groups":
      return <GroupsPage />;
    case "settings":
      return <SettingsPage />;
    case "access":
      return <AccessPage />;
    default:
      return <p>{strings.app.notFound}</p>;
  }
}
