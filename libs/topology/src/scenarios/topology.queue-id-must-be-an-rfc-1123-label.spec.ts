import { isRfc1123Label } from '../index';
import { problemsOf, validate } from './setup-fixtures';

describe('topology: worker queue and group ids are RFC 1123 labels', () => {
  it.each(['gpu', 'a', 'gpu-eu-1', '0day', 'a'.repeat(63)])('accepts %s', (id) => {
    expect(isRfc1123Label(id)).toBe(true);
  });

  it.each(['GPU', 'gpu_eu', '-gpu', 'gpu-', 'gpu.eu', '', 'a'.repeat(64), 'é'])('refuses %j', (id) => {
    expect(isRfc1123Label(id)).toBe(false);
  });

  it('names the offending id and the rule', () => {
    expect(problemsOf(validate({ workerQueues: [{ id: 'GPU_1', tags: ['gpu'] }], workerGroups: [{ id: 'Gpu' }] }))).toEqual([
      {
        path: 'setup.workerQueues[0].id',
        message:
          "'GPU_1' is not an RFC 1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
      },
      {
        path: 'setup.workerGroups[0].id',
        message:
          "'Gpu' is not an RFC 1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
      },
    ]);
  });
});
