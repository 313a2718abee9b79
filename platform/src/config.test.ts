import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('defaults to the embedded mode with nothing set', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({ role: 'all', environment: 'sandbox', port: 4000, dataDir: '/srv/app/data', databaseUrl: undefined, redisUrl: undefined, publicUrl: 'http://localhost:4000', rateLimits: true });
    expect(config.internalSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('reads every SVC_ variable', () => {
    const config = loadConfig({
      SVC_PORT: '8080',
      SVC_DATABASE_URL: 'postgres://u@db:5432/x',
      SVC_REDIS_URL: 'redis://cache:6379',
      SVC_PUBLIC_URL: 'https://api.example.org/',
      SVC_ENVIRONMENT: 'production',
      SVC_FINGERPRINT_KEY: 'k'.repeat(40),
      SVC_INTERNAL_SECRET: 's'.repeat(40),
      SVC_DATABASE_POOL_MAX: '4',
    });
    expect(config).toMatchObject({ port: 8080, databaseUrl: 'postgres://u@db:5432/x', databasePoolMax: 4, redisUrl: 'redis://cache:6379', publicUrl: 'https://api.example.org', environment: 'production' });
  });

  it('reports every bad value at once, by variable name', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ SVC_PORT: 'eighty', SVC_ROLE: 'boss', SVC_DATABASE_URL: 'mysql://x', SVC_REDIS_URL: 'not a url', SVC_LOG_LEVEL: 'loud', SVC_DATABASE_POOL_MAX: '0' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('SVC_PORT'),
        expect.stringContaining('SVC_ROLE'),
        expect.stringContaining('SVC_DATABASE_URL'),
        expect.stringContaining('SVC_REDIS_URL'),
        expect.stringContaining('SVC_LOG_LEVEL'),
        expect.stringContaining('SVC_DATABASE_POOL_MAX'),
      ]),
    );
  });

  it('refuses the bootstrap credential in production unless explicitly allowed', () => {
    const base = { SVC_ENVIRONMENT: 'production', SVC_FINGERPRINT_KEY: 'k'.repeat(40), SVC_BOOTSTRAP_TOKEN: 't'.repeat(30) };
    expect(() => loadConfig(base)).toThrow(/SVC_BOOTSTRAP_TOKEN is refused in production/);
    expect(loadConfig({ ...base, SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION: 'true' }).bootstrapToken).toBe('t'.repeat(30));
    expect(() => loadConfig({ SVC_BOOTSTRAP_TOKEN: 'short' })).toThrow(/at least 24 characters/);
  });

  it('refuses a plain-http public URL in production, loopback aside', () => {
    const base = { SVC_ENVIRONMENT: 'production', SVC_FINGERPRINT_KEY: 'k'.repeat(40) };
    expect(() => loadConfig({ ...base, SVC_PUBLIC_URL: 'http://api.example.org' })).toThrow(/SVC_PUBLIC_URL must be https in production/);
    expect(loadConfig({ ...base, SVC_PUBLIC_URL: 'https://api.example.org' }).publicUrl).toBe('https://api.example.org');
    expect(loadConfig({ ...base, SVC_PUBLIC_URL: 'http://127.0.0.1:8080' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig(base).publicUrl).toBe('http://localhost:4000');
    expect(loadConfig({ SVC_PUBLIC_URL: 'http://api.example.org' }).publicUrl).toBe('http://api.example.org');
  });

  it('requires what each distributed role needs', () => {
    expect(() => loadConfig({ SVC_ROLE: 'subgraph:partner' })).toThrow(/SVC_INTERNAL_SECRET is required[\s\S]*SVC_DATABASE_URL is required/);
    expect(() => loadConfig({ SVC_ROLE: 'facade', SVC_INTERNAL_SECRET: 's'.repeat(40) })).toThrow(/SVC_GATEWAY_URL is required/);
    expect(() => loadConfig({ SVC_ROLE: 'gateway', SVC_INTERNAL_SECRET: 's'.repeat(40) })).toThrow(/SVC_SUBGRAPH_PARTNER_URL is required/);
  });

  it('puts the internal listener on loopback port 9464 unless told otherwise', () => {
    expect(loadConfig({})).toMatchObject({ internalPort: 9464, internalHost: '127.0.0.1' });
    expect(loadConfig({ SVC_INTERNAL_PORT: '4001', SVC_INTERNAL_HOST: '10.0.0.5' })).toMatchObject({ internalPort: 4001, internalHost: '10.0.0.5' });
    expect(loadConfig({ SVC_INTERNAL_PORT: 'off' }).internalPort).toBeNull();
    expect(() => loadConfig({ SVC_INTERNAL_PORT: 'x' })).toThrow(/SVC_INTERNAL_PORT must be an integer/);
    expect(() => loadConfig({ SVC_ROLE: 'gateway', SVC_INTERNAL_SECRET: 's'.repeat(40), SVC_INTERNAL_PORT: 'off' })).toThrow(/SVC_INTERNAL_PORT cannot be off/);
  });
});
