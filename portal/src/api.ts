import { createClient, type Client } from 'graphql-ws';

/** A GraphQL error as the gateway formats it (typed domain errors carry code and fieldErrors). */
export interface GqlError {
  message: string;
  extensions?: { code?: string; fieldErrors?: { field: string; message: string }[] } & Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly fieldErrors: { field: string; message: string }[] = [],
    /** The error's other extensions (e.g. what an analytics question was read as). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface Session {
  signedIn: boolean;
  csrfToken?: string;
}

let session: Session = { signedIn: false };

/** The portal's own operations (text → id), put in by the build from the trusted-documents manifest. */
declare const __TRUSTED_DOCUMENT_IDS__: Readonly<Record<string, string>> | undefined;
const documentIds: Readonly<Record<string, string>> = typeof __TRUSTED_DOCUMENT_IDS__ === 'undefined' ? {} : __TRUSTED_DOCUMENT_IDS__;

/**
 * The body of a GraphQL request: a trusted document goes by id (`documentId`), so the gateway runs
 * exactly the text it holds for it; anything else (the explorers' operations) as text.
 */
export function operationBody(query: string, variables: Record<string, unknown>): { documentId: string; variables: Record<string, unknown> } | { query: string; variables: Record<string, unknown> } {
  const documentId = Object.prototype.hasOwnProperty.call(documentIds, query) ? documentIds[query] : undefined;
  return documentId ? { documentId, variables } : { query, variables };
}

/** Ask the facade whether this browser holds a portal cookie, and learn its CSRF token. */
export async function loadSession(): Promise<Session> {
  const res = await fetch('/portal/session', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const body = (await res.json()) as { signed_in: boolean; csrf_token?: string };
  session = { signedIn: body.signed_in, ...(body.csrf_token ? { csrfToken: body.csrf_token } : {}) };
  return session;
}

async function problem(res: Response): Promise<ApiError> {
  // RFC 9457 problem document: the field-level problems are its `errors` member.
  const body = (await res.json().catch(() => ({}))) as { detail?: string; code?: string; errors?: { field: string; message: string }[] } & Record<string, unknown>;
  const { detail, code, errors, ...details } = body;
  return new ApiError(detail ?? `HTTP ${res.status}`, code, errors ?? [], details);
}

export async function signInWithPassword(email: string, password: string): Promise<void> {
  const res = await fetch('/portal/session', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (!res.ok) throw await problem(res);
  await loadSession();
}

export async function signInWithToken(token: string): Promise<void> {
  const res = await fetch('/portal/session/bearer', { method: 'POST', credentials: 'same-origin', headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw await problem(res);
  await loadSession();
}

export async function signOut(): Promise<void> {
  closeSubscriptions();
  await fetch('/portal/session', { method: 'DELETE', credentials: 'same-origin', headers: session.csrfToken ? { 'x-csrf-token': session.csrfToken } : {} });
  session = { signedIn: false };
}

/**
 * Run a GraphQL operation with the cookie (and its CSRF token), or anonymously when signed out; or,
 * given `bearer`, with that API token alone and no cookie (the data-plane playgrounds: a session
 * carries no data-plane scopes).
 */
export async function gql<T>(query: string, variables: Record<string, unknown> = {}, bearer?: string): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (bearer) headers['authorization'] = `Bearer ${bearer}`;
  else if (session.csrfToken) headers['x-csrf-token'] = session.csrfToken;
  const res = await fetch('/graphql', { method: 'POST', credentials: bearer ? 'omit' : 'same-origin', headers, body: JSON.stringify(operationBody(query, variables)) });
  const body = (await res.json().catch(() => ({}))) as { data?: T; errors?: GqlError[] };
  if (body.errors && body.errors.length > 0) {
    const first = body.errors[0]!;
    const { code, fieldErrors, ...details } = first.extensions ?? {};
    throw new ApiError(first.message, code, fieldErrors ?? [], details);
  }
  if (!res.ok || !body.data) throw new ApiError(`HTTP ${res.status}`, undefined);
  return body.data;
}

let ws: Client | null = null;

/** The shared graphql-ws connection: the browser sends the cookie, the CSRF token goes in the connection parameters. */
function wsClient(): Client {
  if (!ws) {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
    ws = createClient({ url, connectionParams: () => (session.csrfToken ? { csrfToken: session.csrfToken } : {}), lazy: true, retryAttempts: 3 });
  }
  return ws;
}

export function closeSubscriptions(): void {
  void ws?.dispose();
  ws = null;
}

/** Subscribe to live events; answers the unsubscribe function. */
export function subscribe<T>(query: string, variables: Record<string, unknown>, onData: (data: T) => void): () => void {
  return wsClient().subscribe<T>({ query, variables }, { next: (msg) => msg.data && onData(msg.data as T), error: () => undefined, complete: () => undefined });
}
