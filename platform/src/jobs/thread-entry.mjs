// The first module of a job thread (job-thread.ts). The thread is started without the parent's
// loader flags, so that it behaves the same under `npm start`, a test runner or a container: a
// module given as TypeScript source gets tsx registered first; a compiled one (dist/, build.ts)
// is imported as it is.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

if (workerData.module.endsWith('.ts')) register();
const hostModule = await import('./thread-host.ts');
await hostModule.serveJobThread(parentPort, workerData);
