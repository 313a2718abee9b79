import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * @health-partner/sdk as a partner gets it: built, packed, installed from the tarball in an empty
 * project, and used there from plain Node and from strict TypeScript (sdk/typescript/scripts/check-package.sh).
 */
describe('the packed SDK', () => {
  it('builds, packs, installs from its tarball in an empty project and works there', async () => {
    const script = new URL('../sdk/typescript/scripts/check-package.sh', import.meta.url).pathname;
    const { stdout } = await promisify(execFile)('bash', [script], { timeout: 280_000, maxBuffer: 10 * 1024 * 1024 });
    expect(stdout).toContain('@health-partner/sdk: the packed tarball installs and works');
  });
});
