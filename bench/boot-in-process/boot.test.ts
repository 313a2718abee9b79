/**
 * The CPU of booting the embedded system again in a process that has booted it before, as each
 * file of the test suite does in its worker (one warm-up boot, then BOOTS boots, each closed before
 * the next). CPU is the process's (every thread), from process.cpuUsage.
 *
 *   npx vitest run --config bench/boot-in-process/vitest.config.ts
 *   BOOT_PROFILE=/tmp/boot.cpuprofile npx vitest run --config bench/boot-in-process/vitest.config.ts   (also a CPU profile of the boots)
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { test } from 'vitest';
import { bootSystem } from '../../test/support/system.js';

const BOOTS = Number(process.env['BOOTS'] ?? 3);

test(`${BOOTS} boots after a warm-up`, async () => {
  await (await bootSystem()).close();
  const profile = process.env['BOOT_PROFILE'];
  const session = profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const perBoot: number[] = [];
  for (let i = 0; i < BOOTS; i++) {
    const before = process.cpuUsage();
    const system = await bootSystem();
    await system.close();
    const used = process.cpuUsage(before);
    perBoot.push((used.user + used.system) / 1000);
  }
  if (session) writeFileSync(profile!, JSON.stringify((await session.post('Profiler.stop')).profile));
  const sorted = [...perBoot].sort((a, b) => a - b);
  console.log(`CPU ms per boot and close: ${perBoot.map((ms) => ms.toFixed(0)).join(', ')} (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)})`);
});
