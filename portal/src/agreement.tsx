import { useEffect, useState } from 'preact/hooks';
import { gql } from './api.js';
import './onboarding.css';
import { toApiError, ErrorBox } from './ui.js';
import type { ApiError } from './api.js';

const DOCUMENT = /* GraphQL */ `query AgreementText($id: ID!) { legalDocument(id: $id) { id title version fileName sha256 content } }`;

interface Text {
  id: string;
  title: string;
  version: string;
  fileName: string;
  sha256: string;
  content: string;
}

/** Where the facade serves a legal document for download (text/plain, ETag = its SHA-256). */
export const downloadPath = (fileName: string) => `/cms/legal/documents/${fileName}`;

/**
 * A legal agreement's full text, read from the public `legalDocument` field when the reader opens
 * it, in a scrollable, keyboard-focusable region, with its download link and SHA-256: what is
 * accepted or e-signed is what the reader could read.
 */
export function AgreementText({ id, fileName, label, open = false }: { id: string; fileName: string; label: string; open?: boolean }) {
  const [text, setText] = useState<Text | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const load = () => {
    if (text) return;
    gql<{ legalDocument: Text | null }>(DOCUMENT, { id })
      .then((d) => (d.legalDocument ? setText(d.legalDocument) : setError(toApiError(new Error('This document is not available.')))))
      .catch((err: unknown) => setError(toApiError(err)));
  };
  useEffect(() => {
    if (open) load();
  }, [open]);
  return (
    <div class="agreement">
    <p>
      <a href={downloadPath(fileName)} download>
        Download the {label} ({fileName})
      </a>
    </p>
    <details open={open} onToggle={(e) => (e.currentTarget as HTMLDetailsElement).open && load()}>
      <summary>Read the {label}</summary>
      <ErrorBox error={error} />
      {text ? (
        <>
          <pre class="agreement-text" tabIndex={0} role="region" aria-label={`${text.title} (${text.version}), full text`} data-testid={`agreement-${id}`}>
            {text.content}
          </pre>
          <p class="hint">
            SHA-256 <code>{text.sha256}</code>
          </p>
        </>
      ) : (
        !error && <p aria-live="polite">Loading the text…</p>
      )}
    </details>
    </div>
  );
}
