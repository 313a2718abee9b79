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

/** Buttons waiting for the requests they started, each with how many are still running. */
const running = new WeakMap<HTMLButtonElement, number>();

/**
 * Every button that starts a request is disabled and marked `aria-busy` until its requests settle,
 * on every page, with nothing to write per page: a click (or a form's submission) opens a short
 * window, until the re-render it causes has run its effects, and each `fetch` started inside it is counted
 * against the button. A request a page starts later by itself (a timer, a live event) is not a
 * button's. Disabling a focused button drops its focus, so it gets focus back when it is done.
 * Call once, before the app renders.
 */
export function installBusyButtons(): void {
  let origin: HTMLButtonElement | null = null;
  const open = (button: HTMLButtonElement | null) => {
    if (!button || button.disabled) return;
    origin = button;
    const close = () => {
      if (origin === button) origin = null;
    };
    // Open until the click's re-render has run its effects (Preact runs them in a timeout after the
    // next frame: a query a click reloads starts there), or 200 ms when no frame comes (hidden tab).
    requestAnimationFrame(() => setTimeout(() => setTimeout(close)));
    setTimeout(close, 200);
  };
  document.addEventListener('click', (e) => open((e.target as Element | null)?.closest?.('button') ?? null), true);
  document.addEventListener('submit', (e) => open(((e as SubmitEvent).submitter as HTMLButtonElement | null) ?? (e.target as HTMLFormElement).querySelector<HTMLButtonElement>('button[type=submit], button:not([type])')), true);
  const fetchNow = window.fetch.bind(window);
  window.fetch = (...args: Parameters<typeof fetch>) => {
    const button = origin;
    const request = fetchNow(...args);
    if (button) {
      busy(button, +1);
      void request.then(
        () => busy(button, -1),
        () => busy(button, -1),
      );
    }
    return request;
  };
}

function busy(button: HTMLButtonElement, delta: 1 | -1): void {
  const count = (running.get(button) ?? 0) + delta;
  if (delta > 0 && count === 1) {
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
  }
  if (count > 0) return void running.set(button, count);
  running.delete(button);
  const hadFocus = document.activeElement === document.body || document.activeElement === null;
  button.disabled = false;
  button.removeAttribute('aria-busy');
  // Focus went to the body when the button was disabled; give it back if nothing else took it.
  if (hadFocus && button.isConnected) button.focus({ preventScroll: true });
}

/**
 * A table too wide for the screen scrolls sideways inside its `.table-wrap` box; a keyboard user
 * must be able to scroll it too (WCAG 2.1.1, axe `scrollable-region-focusable`). Every such box on
 * every page becomes a focusable region named after its table's caption or the heading before it,
 * with nothing to write per page. Call once, before the app renders.
 */
export function installScrollRegions(): void {
  const name = (wrap: Element): string => {
    const caption = wrap.querySelector('caption')?.textContent?.trim();
    if (caption) return caption;
    for (let el: Element | null = wrap; el && el !== document.body; el = el.parentElement) {
      for (let prev = el.previousElementSibling; prev; prev = prev.previousElementSibling) {
        if (/^H[1-6]$/.test(prev.tagName)) return prev.textContent?.trim() || 'Table';
      }
    }
    return 'Table';
  };
  const mark = () => {
    for (const wrap of document.querySelectorAll('.table-wrap:not([tabindex])')) {
      wrap.setAttribute('tabindex', '0');
      wrap.setAttribute('role', 'region');
      wrap.setAttribute('aria-label', name(wrap));
    }
  };
  new MutationObserver(mark).observe(document.body, { childList: true, subtree: true });
  mark();
}
