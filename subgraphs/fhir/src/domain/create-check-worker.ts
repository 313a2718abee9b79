import { parentPort } from 'node:worker_threads';
import { checkCreate } from './create-checks.js';
import { definitions } from './definitions.js';

/** A thread of create-check-pool.ts: `ready` once loaded, then resource texts in, their create checks out, in order. */
definitions();
parentPort?.on('message', (contents: string[]) => parentPort!.postMessage(contents.map(checkCreate)));
parentPort?.postMessage('ready');
