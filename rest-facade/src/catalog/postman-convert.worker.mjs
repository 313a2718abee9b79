// Runs openapi-to-postmanv2 on one OpenAPI document in a worker thread, off the event loop that
// serves requests (postman-collection.ts starts it). Plain JavaScript: the thread needs no loader.
import { parentPort, workerData } from 'node:worker_threads';
import { convertV2 } from 'openapi-to-postmanv2';

const { document, options } = workerData;
convertV2({ type: 'json', data: document }, options, (error, result) => {
  if (error) return parentPort.postMessage({ ok: false, reason: error.message });
  if (!result?.result || !result.output?.[0]) return parentPort.postMessage({ ok: false, reason: result?.reason ?? 'no collection' });
  parentPort.postMessage({ ok: true, collection: result.output[0].data });
});
