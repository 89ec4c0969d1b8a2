// Runs in a worker thread of the api (see flow-source-parser.ts): parses the flow
// sources it is sent and answers each with its id. The parse itself is pure.
import { parentPort } from 'node:worker_threads';
import { parseFlow } from '@lanner/model';

parentPort?.on('message', (request: { readonly id: number; readonly source: string }) => {
  parentPort?.postMessage({ id: request.id, result: parseFlow(request.source) });
});
