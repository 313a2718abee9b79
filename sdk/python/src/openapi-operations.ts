/** What the Python generator reads of an OpenAPI 3.1 document: its operations and OAuth token URL. */

type Json = Record<string, unknown>;

export interface Parameter {
  /** The name on the wire. */
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: Json;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The path template, `{param}` placeholders included. */
  path: string;
  summary: string;
  description?: string;
  deprecated: boolean;
  /** No credential needed (`security: []`): the client sends none. */
  public: boolean;
  parameters: Parameter[];
  /** Media types the body may be sent in, the default first; absent when the operation takes no body. */
  bodyMediaTypes?: string[];
  bodyRequired: boolean;
}

export interface ApiModel {
  title: string;
  version: string;
  /** The client_credentials token URL (a path), when the API has an OAuth 2.0 token endpoint. */
  tokenPath?: string;
  operations: Operation[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const BODY_METHODS = new Set(['put', 'post', 'patch']);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const object = (value: unknown): Json => (isObject(value) ? value : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

function parametersOf(operation: Json): Parameter[] {
  const declared = Array.isArray(operation['parameters']) ? operation['parameters'].filter(isObject) : [];
  return declared
    .filter((parameter) => parameter['in'] === 'path' || parameter['in'] === 'query')
    .map((parameter) => ({
      name: String(parameter['name']),
      in: parameter['in'] as 'path' | 'query',
      required: parameter['in'] === 'path' || parameter['required'] === true,
      ...(text(parameter['description']) ? { description: text(parameter['description'])! } : {}),
      schema: object(parameter['schema']),
    }));
}

/**
 * The media types of the body. An operation without a declared body that still writes (a FHIR
 * create or update, whose body is any resource) takes one in its success media type.
 */
function bodyOf(method: string, operation: Json): Pick<Operation, 'bodyMediaTypes' | 'bodyRequired'> {
  const requestBody = object(operation['requestBody']);
  const declared = Object.keys(object(requestBody['content']));
  if (declared.length > 0) return { bodyMediaTypes: declared, bodyRequired: requestBody['required'] === true };
  if (!BODY_METHODS.has(method)) return { bodyRequired: false };
  const success = Object.entries(object(operation['responses'])).find(([code]) => /^2/.test(code));
  const answered = Object.keys(object(object(success?.[1])['content']));
  return { bodyMediaTypes: [answered.includes('application/fhir+json') ? 'application/fhir+json' : 'application/json'], bodyRequired: false };
}

/** Every operation of the document, in document order. @throws Error if one has no operationId. */
export function readApiModel(document: Json): ApiModel {
  const info = object(document['info']);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(object(document['paths']))) {
    for (const method of METHODS) {
      const operation = object(object(item)[method]);
      if (Object.keys(operation).length === 0) continue;
      const operationId = text(operation['operationId']);
      if (!operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      operations.push({
        operationId,
        method: method.toUpperCase(),
        path,
        summary: text(operation['summary']) ?? `${method.toUpperCase()} ${path}`,
        ...(text(operation['description']) ? { description: text(operation['description'])! } : {}),
        deprecated: operation['deprecated'] === true,
        public: Array.isArray(operation['security']) && operation['security'].length === 0,
        parameters: parametersOf(operation),
        ...bodyOf(method, operation),
      });
    }
  }
  const schemes = Object.values(object(object(document['components'])['securitySchemes'])).map(object);
  const tokenUrl = schemes.map((scheme) => text(object(object(scheme['flows'])['clientCredentials'])['tokenUrl'])).find((url) => url !== undefined);
  return {
    title: text(info['title']) ?? 'API',
    version: text(info['version']) ?? '0.0.0',
    ...(tokenUrl ? { tokenPath: tokenUrl } : {}),
    operations,
  };
}
