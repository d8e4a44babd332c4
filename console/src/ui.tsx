import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api';

/** Polls `load` every `ms` while mounted (the console's "live": admin reads, no extra channel). */
export function usePoll<T>(load: () => Promise<T>, ms: number, deps: unknown[] = []): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const run = async () => {
      try {
        const value = await loader.current();
        if (!stopped) {
          setData(value);
          setError(null);
        }
      } catch (e) {
        if (!stopped) setError(describeError(e));
      }
      if (!stopped) timer = window.setTimeout(run, ms);
    };
    void run();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [ms, tick, ...deps]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

export interface PendingAction {
  title: string;
  detail: string;
  confirmLabel: string;
  run: () => Promise<unknown>;
}

/** The confirmation every change that cannot be undone from here goes through. */
export function ConfirmDialog({ action, onDone }: { action: PendingAction | null; onDone: (message: string | null, error?: boolean) => void }) {
  const [busy, setBusy] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => confirmButton.current?.focus(), [action]);
  if (!action) return null;
  const confirm = async () => {
    setBusy(true);
    try {
      await action.run();
      onDone(`${action.title}: done`);
    } catch (e) {
      onDone(`${action.title}: ${describeError(e)}`, true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-title" aria-describedby="confirm-detail">
        <h2 id="confirm-title">{action.title}</h2>
        <p id="confirm-detail">{action.detail}</p>
        <div class="row">
          <button ref={confirmButton} class="danger" data-testid="confirm" disabled={busy} onClick={confirm}>
            {action.confirmLabel}
          </button>
          <button disabled={busy} onClick={() => onDone(null)}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id ? `${id}-h` : undefined}>
      <h2 id={id ? `${id}-h` : undefined}>{title}</h2>
      {children}
    </section>
  );
}

export const ErrorText = ({ error }: { error: string | null }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

export const time = (unixSeconds: number | null | undefined) => (unixSeconds ? new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z') : '—');

/** The form's fields by name (every input of the console's forms has one). */
export function formValues(event: Event): Record<string, string> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  return Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, typeof v === 'string' ? v : v.name]));
}
