import { InvalidWorkerQueueIdError, QueueTopics, spineTopics, workerJobsTopic, workerQueueIdOfTopic } from './index';

describe('worker-jobs topics', () => {
  it('are named after their worker queue, and the queue can be read back from the name', () => {
    expect(workerJobsTopic('gpu-eu')).toBe('lanner.worker-jobs.gpu-eu');
    expect(workerQueueIdOfTopic('lanner.worker-jobs.gpu-eu')).toBe('gpu-eu');
  });

  it('are refused for a queue id that is not an RFC 1123 label', () => {
    expect(() => workerJobsTopic('GPU_EU')).toThrow(InvalidWorkerQueueIdError);
    expect(() => workerJobsTopic('-gpu')).toThrow("'-gpu' is not a worker queue id");
    expect(() => workerJobsTopic('a'.repeat(64))).toThrow(InvalidWorkerQueueIdError);
  });

  it('are told apart from the fixed topics', () => {
    for (const topic of Object.values(QueueTopics)) expect(workerQueueIdOfTopic(topic)).toBeUndefined();
    expect(QueueTopics).toEqual({
      executor: 'lanner.executor',
      results: 'lanner.results',
      logs: 'lanner.logs',
      metrics: 'lanner.metrics',
      audit: 'lanner.audit',
      executionUpdates: 'lanner.execution-updates',
      triggerResults: 'lanner.trigger-results',
      broadcast: 'lanner.broadcast',
    });
  });
});

describe('the spine topics every server role ensures', () => {
  it('are the shared topics plus the job topics of the reserved queues, under a prefix when given', () => {
    expect(spineTopics(['default', 'system'])).toEqual([
      'lanner.executor',
      'lanner.execution-updates',
      'lanner.logs',
      'lanner.metrics',
      'lanner.audit',
      'lanner.results',
      'lanner.trigger-results',
      'lanner.broadcast',
      'lanner.worker-jobs.default',
      'lanner.worker-jobs.system',
      'lanner.resubmitted-jobs.default',
      'lanner.resubmitted-jobs.system',
    ]);
    expect(spineTopics(['default', 'system'], 'run-7.').every((topic) => topic.startsWith('run-7.lanner.'))).toBe(true);
  });
});
