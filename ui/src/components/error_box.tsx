/** An API error as the UI shows it: the message, and the hint when there is one. */
import { ApiError } from "../api.ts";
import { fill, strings } from "../strings.ts";

export function ErrorBox(
  { error, onRetry }: { error: unknown; onRetry?: () => void },
) {
  if (error === undefined || error === null) return null;
  const api = error instanceof ApiError ? error : undefined;
  const message = api?.missing
    ? fill(strings.app.forbidden, api.missing)
    : error instanceof Error
    ? error.message
    : String(error);
  return (
    <div class="error" role="alert">
      <div>{message}</div>
      {api?.hint && <div>{fill(strings.errors.hint, { hint: api.hint })}</div>}
      {onRetry && (
        <button type="button" onClick={onRetry}>{strings.app.retry}</button>
      )}
    </div>
  );
}
