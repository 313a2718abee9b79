import { parse } from 'yaml';

/** A JSON Schema as the OpenAPI 3.1 documents carry it (draft 2020-12). */
export type Schema = Record<string, unknown>;

/** How an operation's errors are written, by the documents: problem+json, OperationOutcome or RFC 6749 JSON. */
export type ErrorDialect = 'problem' | 'fhir' | 'oauth';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

/** One operation of the served document, with everything a case generator needs. */
export interface Operation {
  id: string;
  method: string;
  /** The documented path, with `{param}` placeholders. */
  path: string;
  parameters: Parameter[];
  body?: { mediaType: string; schema: Schema; required: boolean };
  /** False when the document says the operation is not served yet (501 is its answer). */
  implemented: boolean;
  /** True when the document lists no security requirement. */
  public: boolean;
  /** Prefers an OAuth client_credentials token (the `service` credential class lists oauth2 first). */
  serviceCredential: boolean;
  deprecated: boolean;
  errorDialect: ErrorDialect;
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follow one local `$ref` (`#/components/...`) of the document. */
function deref(document: Node, value: unknown): unknown {
  if (!isNode(value) || typeof value['$ref'] !== 'string') return value;
  const path = value['$ref'].replace(/^#\//, '').split('/');
  let node: unknown = document;
  for (const key of path) node = isNode(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return deref(document, node);
}

/** Whether an error response of the operation is documented as RFC 6749 `{ error }` JSON. */
function oauthErrors(document: Node, responses: Node): boolean {
  const badRequest = deref(document, responses['400']);
  const content = isNode(badRequest) && isNode(badRequest['content']) ? badRequest['content'] : {};
  return Object.values(content).some((media) => isNode(media) && JSON.stringify(media['schema'] ?? {}).includes('OAuthError'));
}

/** Every operation of an OpenAPI 3.1 document, in document order. */
export function operationsOf(text: string): Operation[] {
  const document = parse(text) as Node;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(isNode(document['paths']) ? document['paths'] : {})) {
    if (!isNode(item)) continue;
    for (const [method, raw] of Object.entries(item)) {
      if (!isNode(raw) || !['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
      const parameters = (Array.isArray(raw['parameters']) ? raw['parameters'] : []).map((p) => deref(document, p) as Node).map((p) => ({
        name: String(p['name']),
        in: p['in'] as Parameter['in'],
        required: p['required'] === true,
        schema: isNode(p['schema']) ? p['schema'] : {},
      }));
      const requestBody = deref(document, raw['requestBody']);
      let body: Operation['body'];
      if (isNode(requestBody) && isNode(requestBody['content'])) {
        const [mediaType, media] = Object.entries(requestBody['content'])[0] ?? [];
        if (mediaType && isNode(media)) body = { mediaType, schema: isNode(media['schema']) ? media['schema'] : {}, required: requestBody['required'] === true };
      }
      const security = Array.isArray(raw['security']) ? (raw['security'] as Node[]) : [];
      operations.push({
        id: String(raw['operationId'] ?? `${method} ${path}`),
        method: method.toUpperCase(),
        path,
        parameters,
        ...(body ? { body } : {}),
        implemented: raw['x-implemented'] !== false,
        public: security.length === 0,
        serviceCredential: security.length > 0 && Object.keys(security[0] ?? {})[0] === 'oauth2',
        deprecated: raw['deprecated'] === true,
        errorDialect: path === '/fhir/R4' || path.startsWith('/fhir/R4/') ? 'fhir' : oauthErrors(document, isNode(raw['responses']) ? raw['responses'] : {}) ? 'oauth' : 'problem',
      });
    }
  }
  return operations;
}
