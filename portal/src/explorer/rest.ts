import SwaggerUI from 'swagger-ui-dist/swagger-ui-es-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './explorer.css';

/**
 * The REST explorer: Swagger UI (bundled here, no CDN) on our own OpenAPI documents, with "Try it
 * out" against this origin. With a portal session every request carries the session's cookie and
 * CSRF token, so it runs with the signed-in partner's credentials, limits and tenancy; without one,
 * the Authorize button takes a bearer token.
 */
async function start(): Promise<void> {
  const session = (await (await fetch('/portal/session', { credentials: 'same-origin' })).json()) as { signed_in: boolean; csrf_token?: string };
  const csrf = session.csrf_token;
  // One document of `GET /api/openapi/{spec}`: `?spec=fhir` (a product, as on the OpenAPI page), all routes by default.
  const asked = new URLSearchParams(location.search).get('spec') ?? 'all';
  const spec = /^[a-z-]{1,40}$/.test(asked) ? asked : 'all';
  // "Try it out" goes to this origin, whatever public URL the document names.
  const document = (await (await fetch(`/api/openapi/${spec}.json`, { credentials: 'same-origin' })).json()) as Record<string, unknown>;
  document['servers'] = [{ url: location.origin, description: 'This server' }];
  SwaggerUI({
    dom_id: '#rest-explorer',
    spec: document,
    deepLinking: false,
    tryItOutEnabled: session.signed_in,
    requestInterceptor: (request: { headers: Record<string, string>; credentials?: string }) => {
      request.credentials = 'same-origin';
      if (csrf && !request.headers['Authorization']) request.headers['x-csrf-token'] = csrf;
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
