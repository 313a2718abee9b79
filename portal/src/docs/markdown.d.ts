/** The repository's Markdown files, bundled as text by esbuild (`loader: { '.md': 'text' }` in build.ts). */
declare module '*.md' {
  const text: string;
  export default text;
}

/** markdown-it 14 ships no types; the docs hub uses its constructor, render and renderer rules. */
declare module 'markdown-it' {
  interface Token {
    tag: string;
    attrs: [string, string][] | null;
    attrGet(name: string): string | null;
    attrSet(name: string, value: string): void;
  }
  type Rule = (tokens: Token[], idx: number, options: unknown, env: unknown, self: Renderer) => string;
  interface Renderer {
    rules: Record<string, Rule | undefined>;
    renderToken(tokens: Token[], idx: number, options: unknown): string;
  }
  interface CoreRuler {
    push(name: string, rule: (state: { tokens: (Token & { children: Token[] | null })[] }) => void): void;
  }
  class MarkdownIt {
    constructor(options?: { html?: boolean; linkify?: boolean; typographer?: boolean });
    renderer: Renderer;
    core: { ruler: CoreRuler };
    render(src: string): string;
  }
  export default MarkdownIt;
}
