/** Emits `client.py`: the `Client` class with one method per operation of the API model. */
import type { ApiModel, Operation, Parameter } from './openapi-operations.js';
import { docstringText, pythonIdentifier, pythonString, pythonType, snakeCase, wrap } from './python-syntax.js';

/** Names every method has besides the operation's own parameters. */
const RESERVED = new Set(['self', 'body', 'content_type', 'params', 'headers']);
/** Methods of Client that are not operations. */
const CLIENT_METHODS = new Set(['send']);

const INDENT = '    ';

interface Argument {
  parameter: Parameter;
  identifier: string;
}

function argumentsOf(operation: Operation): Argument[] {
  const seen = new Set<string>();
  return operation.parameters.map((parameter) => {
    let identifier = pythonIdentifier(parameter.name, RESERVED);
    while (seen.has(identifier)) identifier += '_';
    seen.add(identifier);
    return { parameter, identifier };
  });
}

function describeParameter(parameter: Parameter): string {
  const parts = [parameter.description ?? (parameter.in === 'path' ? 'Path parameter.' : 'Query parameter.')];
  const values = parameter.schema['enum'];
  if (Array.isArray(values)) parts.push(`One of: ${values.map(String).join(', ')}.`);
  return parts.join(' ');
}

function docstring(operation: Operation, args: readonly Argument[]): string[] {
  const body = `${INDENT}${INDENT}`;
  const lines = [`${body}"""${docstringText(operation.summary)}.`, '', `${body}\`\`${operation.method} ${docstringText(operation.path)}\`\`${operation.deprecated ? ' (deprecated)' : ''}`];
  // The OpenAPI description starts with the summary again: the docstring's first line has it already.
  const description = operation.description?.startsWith(`${operation.summary}.`) ? operation.description.slice(operation.summary.length + 1).trim() : operation.description;
  if (description) lines.push('', ...wrap(docstringText(description), body));
  lines.push('', `${body}Args:`);
  const arg = (name: string, text: string) => wrap(`${name}: ${docstringText(text)}`, `${body}${INDENT}`).map((line, i) => (i === 0 ? line : `${INDENT}${line}`));
  for (const { parameter, identifier } of args.filter((a) => a.parameter.in === 'path')) lines.push(...arg(identifier, describeParameter(parameter)));
  if (operation.bodyMediaTypes) {
    lines.push(...arg('body', `The request body (${operation.bodyMediaTypes.join(', ')}): a dict or list, sent as JSON (form fields for a form media type), or str or bytes sent as they are.`));
  }
  for (const { parameter, identifier } of args.filter((a) => a.parameter.in === 'query')) lines.push(...arg(identifier, describeParameter(parameter)));
  if (operation.bodyMediaTypes && operation.bodyMediaTypes.length > 1) lines.push(...arg('content_type', `The body's media type, default ${operation.bodyMediaTypes[0]}.`));
  lines.push(...arg('params', 'Further query parameters, such as FHIR search parameters.'));
  lines.push(...arg('headers', 'Further request headers, such as X-Svc-Source on identity writes or Prefer.'));
  lines.push(
    '',
    `${body}Returns:`,
    `${body}${INDENT}The response body: JSON as dicts and lists, other media types as text, None when empty.`,
    '',
    `${body}Raises:`,
    `${body}${INDENT}ApiError: The API answered an error (429 and 503 are retried first).`,
    `${body}"""`,
  );
  return lines;
}

function signature(name: string, operation: Operation, args: readonly Argument[]): string[] {
  const positional = args.filter((a) => a.parameter.in === 'path').map((a) => `${a.identifier}: ${pythonType(a.parameter.schema)}`);
  if (operation.bodyMediaTypes) positional.push(operation.bodyRequired ? 'body: Any' : 'body: Any = None');
  const keywords = args.filter((a) => a.parameter.in === 'query').map((a) => (a.parameter.required ? `${a.identifier}: ${pythonType(a.parameter.schema)}` : `${a.identifier}: Optional[${pythonType(a.parameter.schema)}] = None`));
  if (operation.bodyMediaTypes && operation.bodyMediaTypes.length > 1) keywords.push('content_type: Optional[str] = None');
  keywords.push('params: Optional[Mapping[str, Any]] = None', 'headers: Optional[Mapping[str, str]] = None');
  const all = ['self', ...positional, '*', ...keywords];
  return [`${INDENT}def ${name}(`, ...all.map((a) => `${INDENT}${INDENT}${a},`), `${INDENT}) -> Any:`];
}

function pathExpression(operation: Operation, args: readonly Argument[]): string {
  const byName = new Map(args.filter((a) => a.parameter.in === 'path').map((a) => [a.parameter.name, a.identifier]));
  if (byName.size === 0) return pythonString(operation.path);
  const literal = pythonString(operation.path.replace(/[{}]/g, (brace) => brace + brace));
  return `f${literal.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (byName.has(name) ? `{path_segment(${byName.get(name)})}` : whole))}`;
}

function method(name: string, operation: Operation): string[] {
  const args = argumentsOf(operation);
  const query = args.filter((a) => a.parameter.in === 'query').map((a) => `${pythonString(a.parameter.name)}: ${a.identifier}`);
  const call = [
    `${INDENT}${INDENT}return self._transport.send(`,
    `${INDENT}${INDENT}${INDENT}${pythonString(operation.method)},`,
    `${INDENT}${INDENT}${INDENT}${pathExpression(operation, args)},`,
    `${INDENT}${INDENT}${INDENT}query={${query.join(', ')}${query.length > 0 ? ', ' : ''}**(params or {})},`,
  ];
  if (operation.bodyMediaTypes) {
    const contentType = operation.bodyMediaTypes.length > 1 ? `content_type or ${pythonString(operation.bodyMediaTypes[0]!)}` : pythonString(operation.bodyMediaTypes[0]!);
    call.push(`${INDENT}${INDENT}${INDENT}body=body,`, `${INDENT}${INDENT}${INDENT}content_type=${contentType},`);
  }
  call.push(`${INDENT}${INDENT}${INDENT}headers=headers,`);
  if (operation.public) call.push(`${INDENT}${INDENT}${INDENT}authenticated=False,`);
  call.push(`${INDENT}${INDENT}).body`);
  return ['', ...signature(name, operation, args), ...docstring(operation, args), ...call];
}

/** The method name of each operation: its operationId (the route id) in snake_case. @throws Error on a clash. */
export function methodNames(operations: readonly Operation[]): Map<Operation, string> {
  const names = new Map<Operation, string>();
  const taken = new Map<string, string>();
  for (const operation of operations) {
    const name = snakeCase(operation.operationId);
    const clash = taken.get(name) ?? (CLIENT_METHODS.has(name) ? 'a Client method' : undefined);
    if (clash) throw new Error(`operationId ${operation.operationId} and ${clash} both make the method name ${name}`);
    taken.set(name, operation.operationId);
    names.set(operation, name);
  }
  return names;
}

function constructor(model: ApiModel): string[] {
  const oauth = model.tokenPath !== undefined;
  const params = ['self', 'base_url: str', 'token: Optional[str] = None', '*'];
  if (oauth) params.push('client_id: Optional[str] = None', 'client_secret: Optional[str] = None', 'scope: Optional[str] = None');
  params.push('timeout: float = 30.0', 'max_retries: int = 3', 'max_retry_wait: float = 60.0');
  const doc = [
    `${INDENT}${INDENT}"""Connect to the API at \`\`base_url\`\` (e.g. the sandbox).`,
    '',
    `${INDENT}${INDENT}Args:`,
    `${INDENT}${INDENT}${INDENT}base_url: The API's base URL, such as \`\`https://sandbox.example.com\`\`.`,
    `${INDENT}${INDENT}${INDENT}token: A bearer token: a partner API token or an access token you obtained.`,
  ];
  if (oauth) {
    doc.push(
      `${INDENT}${INDENT}${INDENT}client_id: An OAuth 2.0 client (client_credentials): the client gets access tokens from`,
      `${INDENT}${INDENT}${INDENT}${INDENT}\`\`${model.tokenPath}\`\` itself and renews them before they expire.`,
      `${INDENT}${INDENT}${INDENT}client_secret: That client's secret.`,
      `${INDENT}${INDENT}${INDENT}scope: The scopes to ask for, space-separated (default: all the client's scopes).`,
    );
  }
  doc.push(
    `${INDENT}${INDENT}${INDENT}timeout: Seconds to wait for each answer.`,
    `${INDENT}${INDENT}${INDENT}max_retries: How often a 429 or 503 is retried, after its Retry-After (0.5 s doubling without one).`,
    `${INDENT}${INDENT}${INDENT}max_retry_wait: A Retry-After longer than this many seconds is not waited for: the ApiError is raised.`,
    `${INDENT}${INDENT}"""`,
  );
  const transport = [
    `${INDENT}${INDENT}self._transport = Transport(`,
    `${INDENT}${INDENT}${INDENT}base_url,`,
    `${INDENT}${INDENT}${INDENT}token=token,`,
    ...(oauth ? [`${INDENT}${INDENT}${INDENT}client_id=client_id,`, `${INDENT}${INDENT}${INDENT}client_secret=client_secret,`, `${INDENT}${INDENT}${INDENT}scope=scope,`, `${INDENT}${INDENT}${INDENT}token_path=${pythonString(model.tokenPath!)},`] : []),
    `${INDENT}${INDENT}${INDENT}timeout=timeout,`,
    `${INDENT}${INDENT}${INDENT}max_retries=max_retries,`,
    `${INDENT}${INDENT}${INDENT}max_retry_wait=max_retry_wait,`,
    `${INDENT}${INDENT}${INDENT}user_agent="health-partner-sdk/" + __version__,`,
    `${INDENT}${INDENT})`,
  ];
  return [`${INDENT}def __init__(`, ...params.map((p) => `${INDENT}${INDENT}${p},`), `${INDENT}) -> None:`, ...doc, ...transport];
}

const SEND = [
  '',
  `${INDENT}def send(`,
  `${INDENT}${INDENT}self,`,
  `${INDENT}${INDENT}method: str,`,
  `${INDENT}${INDENT}path: str,`,
  `${INDENT}${INDENT}*,`,
  `${INDENT}${INDENT}query: Optional[Mapping[str, Any]] = None,`,
  `${INDENT}${INDENT}body: Any = None,`,
  `${INDENT}${INDENT}content_type: Optional[str] = None,`,
  `${INDENT}${INDENT}headers: Optional[Mapping[str, str]] = None,`,
  `${INDENT}${INDENT}authenticated: bool = True,`,
  `${INDENT}) -> Response:`,
  `${INDENT}${INDENT}"""Send any request and get its status and headers too (e.g. a $export kick-off's Content-Location).`,
  '',
  `${INDENT}${INDENT}Raises:`,
  `${INDENT}${INDENT}${INDENT}ApiError: The API answered an error (429 and 503 are retried first).`,
  `${INDENT}${INDENT}"""`,
  `${INDENT}${INDENT}return self._transport.send(method, path, query=query, body=body, content_type=content_type, headers=headers, authenticated=authenticated)`,
];

/** The source of `client.py`. */
export function emitClient(model: ApiModel): string {
  const names = methodNames(model.operations);
  const lines = [
    `"""${docstringText(model.title)} ${model.version}: the client, generated from the OpenAPI document.`,
    '',
    'Do not edit: run ``npm run sdk:python`` in the repository to generate it again.',
    '"""',
    '',
    'from __future__ import annotations',
    '',
    'from typing import Any, Mapping, Optional, Sequence',
    '',
    'from ._transport import Response, Transport, path_segment',
    'from ._version import __version__',
    '',
    '__all__ = ["Client"]',
    '',
    '',
    'class Client:',
    `${INDENT}"""${docstringText(model.title)}: one method per operation, named after its operationId.`,
    '',
    `${INDENT}Errors are raised as \`\`ApiError\`\`; 429 and 503 answers are retried (bounded) after their Retry-After.`,
    `${INDENT}"""`,
    '',
    ...constructor(model),
    ...SEND,
  ];
  for (const operation of model.operations) lines.push(...method(names.get(operation)!, operation));
  return `${lines.join('\n')}\n`;
}
