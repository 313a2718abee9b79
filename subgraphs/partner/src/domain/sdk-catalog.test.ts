import { describe, expect, it } from 'vitest';
import { SDK_CATALOG, SDK_FEATURES, findSdk } from './sdk-catalog.js';

describe('SDK catalog', () => {
  it('covers the six languages with unique ids and packages', () => {
    expect(SDK_CATALOG.map((entry) => entry.id)).toEqual(['typescript', 'python', 'java', 'dotnet', 'go', 'ruby']);
    expect(new Set(SDK_CATALOG.map((entry) => entry.package_name)).size).toBe(SDK_CATALOG.length);
    expect(findSdk('typescript')?.package_name).toBe('@health-partner/sdk');
    expect(findSdk('cobol')).toBeUndefined();
  });

  it('has complete, well-formed entries', () => {
    const features = new Set<string>(SDK_FEATURES.map((feature) => feature.code));
    for (const entry of SDK_CATALOG) {
      expect(entry.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(entry.repository_url).toMatch(/^https:\/\//);
      expect(entry.documentation_url).toMatch(/^https:\/\//);
      expect(entry.released_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      // Official SDKs shipped with portal v2.0.0.
      expect(entry.released_at >= '2026-06-12').toBe(true);
      expect(entry.min_runtime).not.toBe('');
      expect(entry.features.length).toBeGreaterThan(0);
      for (const feature of entry.features) expect(features).toContain(feature);
      expect(new Set(entry.features).size).toBe(entry.features.length);
      expect(entry.status === 'beta').toBe(entry.version.startsWith('0.'));
    }
  });
});
