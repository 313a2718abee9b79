import SwaggerUI from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './explorer.css';
import './rest.css';

/** What a snippet says instead of a credential: the partner's own token goes there. */
export const TOKEN_PLACEHOLDER = '<your token>';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The cURL snippet, usable outside the browser: the request's method, URL, headers and body, with
 * `Authorization: Bearer <your token>` when the request carries no Authorization of its own. The
 * browser's session (its cookie and CSRF token) never appears in it: they are added by `fetch`
 * below, after the snippet is made, and only for this origin.
 */
function curlSnippet(request: { get(key: string): unknown }): string {
  const headers = request.get('headers') as { entrySeq?: () => { toArray(): [string, string][] } } | undefined;
  const pairs = (headers?.entrySeq?.().toArray() ?? []).filter(([k]) => k.toLowerCase() !== 'x-csrf-token' && k.toLowerCase() !== 'cookie');
  if (!pairs.some(([k]) => k.toLowerCase() === 'authorization')) pairs.push(['Authorization', `Bearer ${TOKEN_PLACEHOLDER}`]);
  const lines = [`curl -X ${String(request.get('method'))} ${quote(String(request.get('url')))}`, ...pairs.map(([k, v]) => `-H ${quote(`${k}: ${v}`)}`)];
  const body = request.get('body');
  if (typeof body === 'string' && body !== '') lines.push(`-d ${quote(body)}`);
  return lines.join(' \\\n  ');
}

/**
 * The REST explorer: Swagger UI (bundled here, no CDN) on our own OpenAPI documents, with "Try it
 * out" against this origin. With a portal session every request sent from the page carries the
 * session's cookie and CSRF token, so it runs with the signed-in partner's credentials, limits and
 * tenancy; Authorize takes a bearer token instead. The snippets show a token placeholder.
 */
async function start(): Promise<void> {
  const session = (await (await fetch('/portal/session', { credentials: 'same-origin' })).json()) as { signed_in: boolean; csrf_token?: string };
  const csrf = session.csrf_token;
  if (csrf) {
    // The CSRF token goes on at the last moment, on requests to this origin without a bearer of their own.
    const send = window.fetch.bind(window);
    window.fetch = (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = new URL(input instanceof Request ? input.url : String(input), location.href);
      const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
      if (url.origin === location.origin && !headers.has('authorization')) headers.set('x-csrf-token', csrf);
      return send(input, { ...init, headers });
    };
  }
  // One document of `GET /api/openapi/{spec}`: `?spec=fhir` (a product, as on the OpenAPI page), all routes by default.
  const asked = new URLSearchParams(location.search).get('spec') ?? 'all';
  const spec = /^[a-z-]{1,40}$/.test(asked) ? asked : 'all';
  // "Try it out" goes to this origin, whatever public URL the document names.
  const document = (await (await fetch(`/api/openapi/${spec}.json`, { credentials: 'same-origin' })).json()) as Record<string, unknown>;
  document['servers'] = [{ url: location.origin, description: 'This server' }];
  const note = window.document.createElement('p');
  note.className = 'snippet-note';
  note.textContent = `The cURL snippets carry no credential of this browser: replace ${TOKEN_PLACEHOLDER} with an API token from the API tokens page (or click Authorize and paste one). "Try it out" here runs with your portal session.`;
  window.document.getElementById('rest-explorer')?.before(note);
  SwaggerUI({
    dom_id: '#rest-explorer',
    spec: document,
    deepLinking: false,
    tryItOutEnabled: session.signed_in,
    plugins: [() => ({ fn: { requestSnippetGenerator_curl_bash: curlSnippet } })],
    requestSnippetsEnabled: true,
    requestSnippets: { generators: { curl_bash: { title: 'cURL (bash)', syntax: 'bash' } }, defaultExpanded: true, languages: ['curl_bash'] },
    requestInterceptor: (request: { credentials?: string }) => {
      request.credentials = 'same-origin';
      return request;
    },
  });
}

/**
 * Swagger UI leaves its server choice and the parameters' enum choices without a label, and its
 * code blocks (cURL, response bodies) scroll without being reachable by keyboard; each gets what it
 * lacks whenever Swagger UI renders it.
 */
function labelControls(): void {
  const root = document.getElementById('rest-explorer')!;
  const label = () => {
    const servers = root.querySelector('#servers select, select#servers');
    if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
    for (const select of root.querySelectorAll('tr[data-param-name] select:not([aria-label])')) {
      select.setAttribute('aria-label', `Parameter ${select.closest('tr')!.getAttribute('data-param-name')}`);
    }
    for (const code of root.querySelectorAll('.microlight:not([tabindex]), pre:not([tabindex])')) code.setAttribute('tabindex', '0');
  };
  new MutationObserver(label).observe(root, { childList: true, subtree: true });
  label();
}

labelControls();
void start();
