/**
 * The blocking switch: on, paused until a time, or off in the
 * configuration; pausing for a while and turning it back on (PUT
 * /api/v1/blocking) for those who may. The state is read again when a
 * pause runs out.
 */
import { useEffect, useState } from "preact/hooks";
import { request } from "../../api.ts";
import { ErrorBox } from "../../components/error_box.tsx";
import { useApi } from "../../components/use_api.ts";
import { time } from "../../format.ts";
import { can } from "../../session.ts";
import { fill, strings } from "../../strings.ts";

/** GET /api/v1/blocking. */
interface BlockingState {
  enabled: boolean;
  configured: boolean;
  reason?: "configuration" | "paused";
  disabledUntil?: string;
  remainingSeconds?: number;
  setBy?: string;
}

const PAUSES = [
  ["5m", "disable5m"],
  ["30m", "disable30m"],
  ["1h", "disable1h"],
] as const;

export function BlockingPanel() {
  const t = strings.settings.blocking;
  const state = useApi<BlockingState>("blocking");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const remaining = state.data?.remainingSeconds;

  useEffect(() => {
    if (remaining === undefined) return;
    const timer = setTimeout(state.reload, remaining * 1000 + 500);
    return () => clearTimeout(timer);
  }, [state.data]);

  const put = async (body: { enabled: boolean; for?: string }) => {
    setBusy(true);
    setError(undefined);
    try {
      await request("PUT", "blocking", { body });
      state.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const s = state.data;
  const paused = s?.reason === "paused";
  const until = s?.disabledUntil ? time(s.disabledUntil) : "";
  const text = s === undefined
    ? strings.app.loading
    : s.enabled
    ? t.on
    : s.reason === "configuration"
    ? t.offByConfig
    : s.setBy
    ? fill(t.pausedBy, { until, who: s.setBy })
    : fill(t.paused, { until });
  const maySet = can("blocking", "set");

  return (
    <section class="panel blocking" aria-labelledby="blocking-title">
      <h2 id="blocking-title">{t.title}</h2>
      <ErrorBox error={state.error} onRetry={state.reload} />
      <p role="status" data-testid="blocking-state">{text}</p>
      {maySet && s !== undefined && s.configured && (
        <div class="toolbar">
          {s.enabled &&
            PAUSES.map(([length, label]) => (
              <button
                key={length}
                type="button"
                disabled={busy}
                onClick={() => void put({ enabled: false, for: length })}
              >
                {t[label]}
              </button>
            ))}
          {paused && (
            <button
              type="button"
              class="primary"
              disabled={busy}
              onClick={() => void put({ enabled: true })}
            >
              {t.enable}
            </button>
          )}
        </div>
      )}
      <ErrorBox error={error} />
    </section>
  );
}
