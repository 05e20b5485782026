/**
 * Users: the list, a new user with a first password (to be changed at the
 * first login), and for each other user disable or enable, a password
 * reset, removing a lost second factor, and delete.
 */
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { Field } from "../../components/field.tsx";
import { useApi } from "../../components/use_api.ts";
import { time } from "../../format.ts";
import { can, session } from "../../session.ts";
import { fill, strings } from "../../strings.ts";
import { ConfirmButton, issuesOf, Notice, useAction } from "./form_parts.tsx";

/** A user as the API lists it (no secrets). */
export interface UserSummary {
  name: string;
  displayName: string;
  disabled: boolean;
  mustChangePassword: boolean;
  localPassword: boolean;
  totp: boolean;
  createdAt?: string;
}

export function UsersTab() {
  const t = strings.access.user;
  const users = useApi<{ items: UserSummary[] }>("users");
  const action = useAction();
  const me = session.value?.user;
  const mayUpdate = can("users", "update");
  const mayDelete = can("users", "delete");
  const [resetting, setResetting] = useState<string>();

  const patch = (name: string, body: Record<string, unknown>, said: string) =>
    action.run(async () => {
      await request("PATCH", `users/${encodeURIComponent(name)}`, { body });
      users.reload();
      return said;
    });

  return (
    <>
      {can("users", "create") && <NewUser onMade={users.reload} />}
      <section aria-labelledby="users-title">
        <h2 id="users-title">{strings.access.users}</h2>
        <Notice text={action.notice} />
        <ErrorBox error={action.error} />
        <ErrorBox error={users.error} onRetry={users.reload} />
        <table class="cards" data-testid="users">
          <thead>
            <tr>
              <th>{t.name}</th>
              <th>{t.displayName}</th>
              <th>{t.state}</th>
              <th>{t.totp}</th>
              <th>{t.created}</th>
              <th>{strings.access.actions}</th>
            </tr>
          </thead>
          <tbody>
            {users.data?.items.map((u) => {
              const self = u.name === me;
              return (
                <Fragment key={u.name}>
                  <tr data-user={u.name}>
                    <td data-label={t.name}>
                      {u.name}
                      {self && <span class="muted">{` (${t.you})`}</span>}
                    </td>
                    <td data-label={t.displayName}>{u.displayName || "—"}</td>
                    <td data-label={t.state}>
                      {u.disabled ? t.disabled : t.active}
                      {u.mustChangePassword && (
                        <span class="muted">{`, ${t.mustChange}`}</span>
                      )}
                    </td>
                    <td data-label={t.totp}>{u.totp ? t.totpOn : t.totpOff}</td>
                    <td data-label={t.created}>
                      {u.createdAt ? time(u.createdAt) : "—"}
                    </td>
                    <td data-label={strings.access.actions} class="actions">
                      {!self && mayUpdate && (
                        <>
                          <button
                            type="button"
                            disabled={action.busy}
                            aria-label={`${
                              u.disabled ? t.enable : t.disable
                            } ${u.name}`}
                            onClick={() =>
                              void patch(
                                u.name,
                                { disabled: !u.disabled },
                                fill(
                                  u.disabled ? t.enabledNow : t.disabledNow,
                                  {
                                    name: u.name,
                                  },
                                ),
                              )}
                          >
                            {u.disabled ? t.enable : t.disable}
                          </button>
                          {u.localPassword && (
                            <button
                              type="button"
                              aria-expanded={resetting === u.name}
                              aria-label={`${t.resetPassword} ${u.name}`}
                              onClick={() =>
                                setResetting(
                                  resetting === u.name ? undefined : u.name,
                                )}
                            >
                              {t.resetPassword}
                            </button>
                          )}
                          {u.totp && (
                            <ConfirmButton
                              label={t.removeTotp}
                              name={`${t.removeTotp} ${u.name}`}
                              disabled={action.busy}
                              onConfirm={() =>
                                void action.run(async () => {
                                  await request(
                                    "DELETE",
                                    `users/${encodeURIComponent(u.name)}/totp`,
                                  );
                                  users.reload();
                                  return fill(t.totpRemoved, { name: u.name });
                                })}
                            />
                          )}
                        </>
                      )}
                      {!self && mayDelete && (
                        <ConfirmButton
                          label={t.delete}
                          name={`${t.delete} ${u.name}`}
                          disabled={action.busy}
                          onConfirm={() =>
                            void action.run(async () => {
                              await request(
                                "DELETE",
                                `users/${encodeURIComponent(u.name)}`,
                              );
                              users.reload();
                              return fill(t.deleted, { name: u.name });
                            })}
                        />
                      )}
                    </td>
                  </tr>
                  {resetting === u.name && (
                    <tr>
                      <td colSpan={6}>
                        <ResetPassword
                          name={u.name}
                          onDone={(said) => {
                            setResetting(undefined);
                            users.reload();
                            action.run(() => Promise.resolve(said));
                          }}
                        />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
        {users.data?.items.length === 0 && <p class="muted">{t.none}</p>}
      </section>
    </>
  );
}

function NewUser({ onMade }: { onMade: () => void }) {
  const t = strings.access.user;
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const issues = issuesOf(action.error);
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await request("POST", "users", {
        body: {
          name: name.trim(),
          password,
          ...(displayName.trim() !== "" && { displayName: displayName.trim() }),
        },
      });
      const made = fill(t.made, { name: name.trim() });
      setName("");
      setDisplayName("");
      setPassword("");
      onMade();
      return made;
    });
  };
  return (
    <section class="panel form-panel" aria-labelledby="new-user-title">
      <h2 id="new-user-title">{t.new}</h2>
      <form class="form-grid" onSubmit={submit}>
        <Field
          label={t.name}
          name="name"
          value={name}
          onValue={setName}
          required
          autocomplete="off"
          error={issues.name}
        />
        <Field
          label={t.displayNameOptional}
          name="displayName"
          value={displayName}
          onValue={setDisplayName}
          autocomplete="off"
        />
        <Field
          label={t.password}
          name="password"
          type="password"
          value={password}
          onValue={setPassword}
          required
          autocomplete="new-password"
          error={issues.password}
        />
        <p class="muted wide">{t.passwordHint}</p>
        <div class="wide">
          <button type="submit" class="primary" disabled={action.busy}>
            {action.busy ? strings.access.creating : strings.access.create}
          </button>
        </div>
      </form>
      <Notice text={action.notice} />
      {Object.keys(issues).length === 0 && <ErrorBox error={action.error} />}
    </section>
  );
}

function ResetPassword(
  { name, onDone }: { name: string; onDone: (said: string) => void },
) {
  const t = strings.access.user;
  const [password, setPassword] = useState("");
  const action = useAction();
  const issues = issuesOf(action.error);
  return (
    <form
      class="toolbar"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          await request("PATCH", `users/${encodeURIComponent(name)}`, {
            body: { password },
          });
          onDone(fill(t.passwordReset, { name }));
        });
      }}
    >
      <Field
        label={fill(t.newPassword, { name })}
        type="password"
        autocomplete="new-password"
        required
        value={password}
        onValue={setPassword}
        error={issues.password}
      />
      <button type="submit" class="primary" disabled={action.busy}>
        {t.setPassword}
      </button>
      {Object.keys(issues).length === 0 && <ErrorBox error={action.error} />}
    </form>
  );
}
