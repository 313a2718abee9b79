/** Python spelling: names, literals and docstrings for the generated source. */

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);

/** `oauth.clients.rotate-secret` → `oauth_clients_rotate_secret`; `resourceType` → `resource_type`. */
export function snakeCase(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return /^[0-9]/.test(snake) ? `_${snake}` : snake;
}

/** A parameter name: snake_case, with a trailing underscore where it would clash with a keyword or a reserved name. */
export function pythonIdentifier(name: string, reserved: ReadonlySet<string> = new Set()): string {
  const snake = snakeCase(name) || 'value';
  return KEYWORDS.has(snake) || reserved.has(snake) ? `${snake}_` : snake;
}

/** A Python string literal (JSON's escapes are all valid in Python). */
export function pythonString(value: string): string {
  return JSON.stringify(value);
}

/** The Python type of a JSON Schema, for a parameter's annotation. */
export function pythonType(schema: Record<string, unknown>): string {
  const type = Array.isArray(schema['type']) ? undefined : schema['type'];
  switch (type) {
    case 'string':
      return 'str';
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'Sequence[Any]';
    case 'object':
      return 'Mapping[str, Any]';
    default:
      return 'Any';
  }
}

/** Words of `text` in lines of at most `width` characters, each prefixed by `indent`. */
export function wrap(text: string, indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

/** Text safe inside a `"""` docstring. */
export function docstringText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
}
