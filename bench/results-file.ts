import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const RESULTS_MARKER = '<!-- Newest results first; bench/run.ts inserts each run below this line. -->';

/** Insert a run's section into bench/RESULTS.md below the marker (newest first), creating the file if needed. */
export function recordResults(section: string): void {
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : `# Benchmark results\n\n${RESULTS_MARKER}\n`;
  const at = text.indexOf(RESULTS_MARKER);
  if (at === -1) text = `${text.trimEnd()}\n\n${section}`;
  else {
    const after = at + RESULTS_MARKER.length;
    text = `${text.slice(0, after)}\n\n${section}${text.slice(after).replace(/^\n+/, '\n')}`;
  }
  writeFileSync(RESULTS_FILE, `${text.trimEnd()}\n`);
}
