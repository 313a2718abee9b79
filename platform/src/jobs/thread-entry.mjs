// The first module of a job thread (job-thread.ts). The thread is started without the parent's
// loader flags, so that it behaves the same under `npm start`, a test runner or a container: it
// registers tsx itself, then runs the named module's `runJobThread`.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const hostModule = await import('./thread-host.ts');
await hostModule.serveJobThread(parentPort, workerData);
