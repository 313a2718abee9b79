import { isIP } from 'node:net';
import type { FieldError } from '@svc/platform';
import { normalizeEmail } from './email-address.js';
import { isBlank } from './input-readers.js';
import { currentLegalDocument, findLegalDocument, LEGAL_TEMPLATE_VERSION } from './legal-documents.js';
import { readRequiredText } from './text-fields.js';
import { invalid, valid, type ValidationResult } from './validation-result.js';

/** A validated request to e-sign the BAA. */
export interface BaaSignatureRequest {
  document_id: string;
  signer_name: string;
  signer_title: string;
  /** Canonical (lower-case) address. */
  signer_email: string;
  /** The signer's network address as the edge saw it, or null. */
  client_ip: string | null;
}

/** Field limits of a signature request. */
export const BAA_SIGNER_LIMITS = {
  signerName: { label: 'Signer name', min: 2, max: 200, singleLine: true },
  signerTitle: { label: 'Signer title', min: 2, max: 120, singleLine: true },
} as const;

function readDocumentId(value: unknown, errors: FieldError[]): string | undefined {
  const current = currentLegalDocument('baa');
  if (isBlank(value)) return current.id;
  const entry = typeof value === 'string' ? findLegalDocument(value.trim().replace(/\.txt$/u, '')) : undefined;
  if (!entry) {
    errors.push({ field: 'document_id', message: `Unknown legal document; the BAA in force is ${current.id}.` });
    return undefined;
  }
  if (entry.kind !== 'baa') {
    errors.push({ field: 'document_id', message: `Only the Business Associate Agreement is e-signed; ${entry.id} is not one.` });
    return undefined;
  }
  if (entry.version !== LEGAL_TEMPLATE_VERSION) {
    errors.push({ field: 'document_id', message: `Version ${entry.version} is not in force; sign ${current.id}.` });
    return undefined;
  }
  return entry.id;
}

function readClientIp(value: unknown, errors: FieldError[]): string | null | undefined {
  if (isBlank(value)) return null;
  const ip = typeof value === 'string' ? value.trim() : '';
  if (isIP(ip) === 0) {
    errors.push({ field: 'client_ip', message: 'Client IP must be an IPv4 or IPv6 address.' });
    return undefined;
  }
  return ip;
}

/**
 * Validate a BAA e-signature request: `document_id` (the BAA in force; defaults to it), the signer's
 * `signer_name`, `signer_title` and `signer_email`, and the optional `client_ip`.
 */
export function validateBaaSignatureRequest(input: Readonly<Record<string, unknown>>): ValidationResult<BaaSignatureRequest> {
  const errors: FieldError[] = [];
  const documentId = readDocumentId(input['document_id'], errors);
  const name = readRequiredText(input['signer_name'], 'signer_name', BAA_SIGNER_LIMITS.signerName, errors);
  const title = readRequiredText(input['signer_title'], 'signer_title', BAA_SIGNER_LIMITS.signerTitle, errors);
  let email: string | undefined;
  if (isBlank(input['signer_email'])) errors.push({ field: 'signer_email', message: 'Signer email is required.' });
  else {
    email = normalizeEmail(input['signer_email']);
    if (!email) errors.push({ field: 'signer_email', message: 'Signer email is not a valid e-mail address.' });
  }
  const clientIp = readClientIp(input['client_ip'], errors);
  if (errors.length > 0 || documentId === undefined || name === undefined || title === undefined || email === undefined || clientIp === undefined) {
    return invalid(errors);
  }
  return valid({ document_id: documentId, signer_name: name, signer_title: title, signer_email: email, client_ip: clientIp });
}
