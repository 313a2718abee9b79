import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config, type Logger } from '@svc/platform';
import { startSystem, type RunningSystem } from '../../system.js';
import { freshStorage, type TestStorage } from './databases.js';

export interface TestSystem {
  system: RunningSystem;
  config: Config;
  storage: TestStorage;
  /** The bootstrap operator's bearer secret (every scope). */
  operatorToken: string;
  /** POST /graphql through the gateway. */
  graphql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<{ status: number; data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;
  /** An HTTP request through the whole stack, without a port. */
  request(options: { method?: string; url: string; token?: string | null; headers?: Record<string, string>; body?: unknown }): Promise<LightMyRequestResponse>;
  /** Stop the system and drop its storage. */
  close(): Promise<void>;
}

/**
 * Boot the whole embedded system (or the role in `env`) on fresh storage, as a test's one shared
 * app. Requests go through `app.inject`, so no port is needed unless a test listens itself.
 */
export async function bootSystem(env: Record<string, string> = {}, options: { now?: () => Date; storage?: TestStorage; logger?: Logger } = {}): Promise<TestSystem> {
  const storage = options.storage ?? (await freshStorage());
  const operatorToken = env['SVC_BOOTSTRAP_TOKEN'] ?? `op_${randomBytes(24).toString('base64url')}`;
  // Test files run in parallel on a small machine: an event-loop delay of a second is the test
  // runner's load, not this app's, so only a delay ten times the default sheds here (the load-shedding
  // tests set their own limits).
  const config = loadConfig({ SVC_LOG_LEVEL: 'silent', SVC_BOOTSTRAP_TOKEN: operatorToken, SVC_OUTBOX_POLL_MS: '50', SVC_SHED_EVENT_LOOP_DELAY_MS: '10000', ...storage.env, ...env });
  const system = await startSystem(config, { ...(options.now ? { now: options.now } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  await system.app.ready();

  const request: TestSystem['request'] = ({ method = 'GET', url, token = operatorToken, headers = {}, body }) =>
    system.app.inject({
      method: method as 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  return {
    system,
    config,
    storage,
    operatorToken,
    request,
    async graphql(query, variables, token = operatorToken) {
      const res = await request({ method: 'POST', url: '/graphql', token, body: { query, variables } });
      return { status: res.statusCode, ...res.json() };
    },
    async close() {
      await system.stop();
      if (!options.storage) await storage.dispose();
    },
  };
}
