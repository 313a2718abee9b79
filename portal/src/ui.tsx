import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api.js';

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/** Run a query when the page opens (and on reload()). */
export function useQuery<T>(query: string, variables: Record<string, unknown> = {}): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(variables);
  useEffect(() => {
    let live = true;
    gql<T>(query, variables)
      .then((data) => live && setState({ data, error: null, loading: false }))
      .catch((error: unknown) => live && setState((s) => ({ data: s.data, error: toApiError(error), loading: false })));
    return () => {
      live = false;
    };
  }, [query, key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(err instanceof Error ? err.message : String(err), undefined);
}

/** Run a mutation from a form, with its error kept for display. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>): { run: (...args: A) => Promise<R | null>; error: ApiError | null; busy: boolean } {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (...args: A): Promise<R | null> => {
    setBusy(true);
    setError(null);
    try {
      return await action(...args);
    } catch (err) {
      setError(toApiError(err));
      return null;
    } finally {
      setBusy(false);
    }
  };
  return { run, error, busy };
}

export function ErrorBox({ error }: { error: ApiError | null }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <p>{error.message}</p>
      {error.fieldErrors.length > 0 && (
        <ul>
          {error.fieldErrors.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Partner portal`;
  }, [title]);
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  );
}

export function Loading({ state }: { state: Loaded<unknown> }) {
  if (state.loading && !state.data) return <p aria-live="polite">Loading…</p>;
  return <ErrorBox error={state.error} />;
}

/** A button that copies `text` to the clipboard and says so (or says it could not). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState('');
  return (
    <>
      <button
        type="button"
        class="copy"
        aria-label={label}
        onClick={() =>
          navigator.clipboard
            .writeText(text)
            .then(() => setSaid('Copied'))
            .catch(() => setSaid('Copy failed: select the text instead'))
        }
      >
        Copy
      </button>
      <span class="copied" role="status">
        {said}
      </span>
    </>
  );
}

/** A secret the service shows once: shown with a warning, selectable, with a copy button, never stored by the page. */
export function SecretOnce({ label, secret }: { label: string; secret: string }) {
  return (
    <div class="secret">
      <p role="status">
        <strong>{label}</strong>: copy it now; it is shown only once.
      </p>
      <code class="secret-value" data-testid="secret">
        {secret}
      </code>
      <CopyButton text={secret} label={`Copy the ${label.toLowerCase()}`} />
    </div>
  );
}

export function Field(props: { id: string; label: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

export function formValue(form: HTMLFormElement, name: string): string {
  const el = form.elements.namedItem(name);
  return el && 'value' in el ? String((el as unknown as { value: string }).value) : '';
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}
