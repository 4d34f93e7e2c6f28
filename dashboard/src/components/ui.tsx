/**
 * Small building blocks shared by the pages: the error box (message, suggestion, code), a
 * modal, a copy-once secret field, typed confirmation. Everything renders text as text.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { RowbaseError } from '../api';

/** Shows an API error: its message, its suggestion and its code. Nothing when `error` is null. */
export function ErrorBox({ error, testId }: { error: unknown; testId?: string }) {
  if (!error) return null;
  const e =
    error instanceof RowbaseError
      ? error
      : new RowbaseError({
          status: 0,
          code: 'CLIENT_ERROR',
          message: String((error as Error)?.message ?? error),
          suggestion: 'Reload the page and retry.',
        });
  return (
    <div class="error" role="alert" data-testid={testId ?? 'error'}>
      <div class="error-message">{e.message}</div>
      <div class="error-suggestion">{e.suggestion}</div>
      <div class="error-code">{e.code}</div>
    </div>
  );
}

/** A modal dialog with a title; `onClose` on Escape or the close button. */
export function Modal({
  title,
  onClose,
  children,
  wide,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div class="modal-backdrop">
      <div class={wide ? 'modal wide' : 'modal'} role="dialog" aria-modal="true" aria-label={title}>
        <div class="modal-head">
          <h2>{title}</h2>
          <button type="button" class="icon" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        <div class="modal-body">{children}</div>
      </div>
    </div>
  );
}

/** A secret shown once: read-only field, copy button and a warning that it will not be shown again. */
export function SecretField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <label class="secret">
      <span>{label}</span>
      <div class="secret-row">
        <input
          readOnly
          value={value}
          data-testid={testId}
          onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
        />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </label>
  );
}

/** The warning that goes with SecretField; `single` when one key is shown. */
export function ShownOnce({ single }: { single?: boolean }) {
  return (
    <p class="warning">
      {single
        ? 'Copy this key now: the server keeps only its hash and will never show it again.'
        : 'Copy these keys now: the server keeps only their hash and will never show them again.'}
    </p>
  );
}

/** A destructive action that asks the user to type `word` first. */
export function TypedConfirm({
  word,
  action,
  onConfirm,
  onCancel,
  busy,
  error,
}: {
  word: string;
  action: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  error?: unknown;
}) {
  const [typed, setTyped] = useState('');
  return (
    <Modal title={action} onClose={onCancel}>
      <p>
        This cannot be undone. Type <code>{word}</code> to confirm.
      </p>
      <input
        aria-label="Confirmation"
        data-testid="confirm-input"
        value={typed}
        onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)}
      />
      <ErrorBox error={error} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          data-testid="confirm-button"
          disabled={typed !== word || busy}
          onClick={onConfirm}
        >
          {action}
        </button>
      </div>
    </Modal>
  );
}

/** A page heading with optional actions on the right. */
export function PageHead({ title, sub, children }: { title: string; sub?: string; children?: ComponentChildren }) {
  return (
    <header class="page-head">
      <div>
        <h1>{title}</h1>
        {sub && <p class="muted">{sub}</p>}
      </div>
      <div class="page-actions">{children}</div>
    </header>
  );
}
