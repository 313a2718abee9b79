import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { extname, join } from 'node:path';
import { DomainError } from '@svc/platform';
import type { RouteResult } from '../routes/route.js';

/** Where `npm install` / `npm start` put the built portal (portal/build.ts). */
export const PORTAL_DIST = fileURLToPath(new URL('../../../portal/dist/', import.meta.url));

/**
 * Everything the portal runs is bundled and served from this origin: no inline script, no CDN, no
 * frames. `connect-src 'self'` covers /graphql over HTTP and its WebSocket (CSP 3 matches ws: and
 * wss: of the same host).
 */
export const PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': PORTAL_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};

// Bundles carry a content hash in their name (`app-3FJK2.js`): cached for a year, never revalidated.
const HASHED = /-[A-Z0-9]{8}\.\w+$/;
const FILE_NAME = /^[\w.-]{1,120}$/;

const cache = new Map<string, Buffer>();

async function read(name: string): Promise<Buffer | null> {
  const hit = cache.get(name);
  if (hit) return hit;
  try {
    const content = await readFile(join(PORTAL_DIST, name));
    // index.html is re-read each time only while it is missing (a build in progress); files do not change once built.
    cache.set(name, content);
    return content;
  } catch {
    return null;
  }
}

/**
 * One file of the built portal. A name without an extension is a page of the app (`/portal/webhooks`):
 * it gets index.html, and the app's router shows the page.
 */
export async function portalAsset(file: string | undefined): Promise<RouteResult> {
  const name = file === undefined || file === '' || !file.includes('.') ? 'index.html' : file;
  if (!FILE_NAME.test(name) || name.startsWith('.')) throw new DomainError('NOT_FOUND', 'No such portal file.');
  const content = await read(name);
  if (!content) {
    if (name === 'index.html') throw new DomainError('UPSTREAM_UNAVAILABLE', 'The portal is not built: run npm install (or npm start) to build portal/dist.');
    throw new DomainError('NOT_FOUND', 'No such portal file.');
  }
  const cacheControl = HASHED.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache';
  return {
    body: content,
    contentType: MEDIA_TYPES[extname(name)] ?? 'application/octet-stream',
    headers: { ...SECURITY_HEADERS, 'cache-control': cacheControl },
  };
}
