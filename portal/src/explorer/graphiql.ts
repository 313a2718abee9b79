import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createClient } from 'graphql-ws';
import { parse, type OperationDefinitionNode } from 'graphql';
import 'graphiql/graphiql.css';
import './explorer.css';

/**
 * GraphiQL on the supergraph, bundled here (no CDN) and signed in with the portal's cookie: every
 * request carries the session's CSRF token, subscriptions go over graphql-ws on the same origin.
 */
async function start(): Promise<void> {
  const root = document.getElementById('graphiql')!;
  const session = (await (await fetch('/portal/session', { credentials: 'same-origin' })).json()) as { signed_in: boolean; csrf_token?: string };
  const csrf = session.csrf_token;
  const ws = createClient({ url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`, connectionParams: csrf ? { csrfToken: csrf } : {}, lazy: true });

  const fetcher = (params: { query: string; variables?: unknown; operationName?: string | null }) => {
    let isSubscription = false;
    try {
      const op = parse(params.query).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition' && (!params.operationName || d.name?.value === params.operationName));
      isSubscription = op?.operation === 'subscription';
    } catch {
      // An unparsable document goes to the server, which names the syntax error.
    }
    if (isSubscription) return ws.iterate({ query: params.query, variables: (params.variables ?? {}) as Record<string, unknown>, operationName: params.operationName ?? null });
    return fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(csrf ? { 'x-csrf-token': csrf } : {}) },
      body: JSON.stringify(params),
    }).then((res) => res.json());
  };

  const defaultQuery = session.signed_in ? '# Signed in with the portal session.\n{\n  viewer {\n    kind\n    partnerGpid\n    scopes\n  }\n}\n' : '# Not signed in: sign in at /portal/sign-in to use your credentials.\n{\n  releaseHistory {\n    version\n    title\n  }\n}\n';
  // The light theme, whose colours explorer.css brings to AA contrast (whatever the system prefers).
  createRoot(root).render(createElement(GraphiQL, { fetcher: fetcher as never, defaultQuery, isHeadersEditorEnabled: false, forcedTheme: 'light' }));
  labelEditors(root);
}

/**
 * CodeMirror 5 reads the keyboard through a hidden textarea per editor, which GraphiQL leaves
 * without a name; each gets one from where it sits, now and whenever GraphiQL renders an editor.
 */
function labelEditors(root: HTMLElement): void {
  const label = () => {
    for (const textarea of root.querySelectorAll<HTMLTextAreaElement>('.CodeMirror textarea:not([aria-label])')) {
      const name = textarea.closest('.graphiql-query-editor')
        ? 'GraphQL query'
        : textarea.closest('.result-window')
          ? 'Response'
          : textarea.closest('.graphiql-editor-tool')
            ? 'Variables (JSON)'
            : 'Editor';
      textarea.setAttribute('aria-label', name);
    }
  };
  new MutationObserver(label).observe(root, { childList: true, subtree: true });
  label();
}

void start();
