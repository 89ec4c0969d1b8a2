// Runs in the worker thread that WorkerThreadService starts: the whole worker
// agent (its gRPC stream, its task runner, its log batching) on an event loop
// of its own, answering the process's status questions and its drain.
import { parentPort, workerData } from 'node:worker_threads';
import { createProcessLogger } from '@lanner/runtime';
import { createWorkerAgent, EXIT_CREDENTIALS_REFUSED } from '../worker-agent.factory';
import type { FromWorkerThread, ToWorkerThread, WorkerThreadData } from './worker-thread.protocol';

const port = parentPort;
if (port === null) throw new Error('worker-thread.main runs only as a worker thread');

const { settings, logRole, logLevel } = workerData as WorkerThreadData;
const logger = createProcessLogger(logRole, logLevel);
// process.exit in a worker thread ends the thread with that code; the process sees it and exits the same way.
const agent = createWorkerAgent(settings, logger, () => process.exit(EXIT_CREDENTIALS_REFUSED));
const answer = (message: FromWorkerThread) => port.postMessage(message);

port.on('message', (message: ToWorkerThread) => {
  if (message.type === 'status') {
    answer({ type: 'status', id: message.id, connected: agent.connected, problem: agent.problem });
    return;
  }
  agent
    .drain(message.reason, message.graceMs)
    .catch((error: unknown) => {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      logger.error({ component: 'worker-agent', reason }, 'worker drain did not complete');
    })
    .then(() => {
      answer({ type: 'drained' });
      port.close();
    });
});
agent.start();
