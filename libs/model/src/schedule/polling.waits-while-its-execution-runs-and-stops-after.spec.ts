import { decidePoll, httpPollOutcomeOf, httpPollVariables } from './polling';

const now = new Date('2026-03-01T10:00:00Z');
const trigger = { intervalMs: 5000, stopAfter: ['SUCCESS'] };

describe('a polling trigger', () => {
  it('is polled when it never fired, or when the execution it started last has ended', () => {
    expect(decidePoll(trigger, undefined, now)).toEqual({ action: 'POLL' });
    for (const ended of ['FAILED', 'WARNING', 'KILLED', 'CANCELLED'])
      expect(decidePoll(trigger, ended, now)).toEqual({ action: 'POLL' });
  });

  it('is not polled while the execution it started last runs: it looks again one interval later', () => {
    for (const running of ['CREATED', 'QUEUED', 'RUNNING', 'PAUSED', 'RETRYING', 'KILLING', 'RESTARTED']) {
      expect(decidePoll(trigger, running, now)).toEqual({ action: 'WAIT', nextDate: new Date('2026-03-01T10:00:05Z') });
    }
  });

  it('with allowConcurrent, is polled even while its execution runs', () => {
    expect(decidePoll({ ...trigger, allowConcurrent: true }, 'RUNNING', now)).toEqual({ action: 'POLL' });
  });

  it('polls only at times that meet its conditions (in UTC)', () => {
    // 2026-03-01 is a Sunday.
    const weekdays = { ...trigger, conditions: [{ kind: 'DayWeek' as const, dayOfWeek: 'MONDAY' as const }] };
    expect(decidePoll(weekdays, undefined, now)).toEqual({ action: 'WAIT', nextDate: new Date('2026-03-01T10:00:05Z') });
    expect(decidePoll(weekdays, undefined, new Date('2026-03-02T10:00:00Z'))).toEqual({ action: 'POLL' });
    const office = { ...trigger, conditions: [{ kind: 'TimeBetween' as const, after: '09:00', before: '17:00' }] };
    expect(decidePoll(office, undefined, now)).toEqual({ action: 'POLL' });
    expect(decidePoll(office, undefined, new Date('2026-03-01T18:00:00Z')).action).toBe('WAIT');
  });

  it('disables itself once its last execution ended in a stopAfter state', () => {
    expect(decidePoll(trigger, 'SUCCESS', now)).toEqual({ action: 'STOP' });
    expect(decidePoll({ intervalMs: 5000 }, 'SUCCESS', now)).toEqual({ action: 'POLL' });
  });

  it('reads a worker’s answer into trigger.uri, code, headers and body, and refuses another shape', () => {
    const outputs = { fire: true, uri: 'http://h/x', code: 200, headers: { 'content-type': ['text/plain'] }, body: 'v2' };
    const outcome = httpPollOutcomeOf(outputs);
    if (outcome === undefined) throw new Error('the outputs of a poll were not read');
    expect(outcome.fire).toBe(true);
    expect(httpPollVariables(outcome)).toEqual({
      uri: 'http://h/x',
      code: 200,
      headers: { 'content-type': ['text/plain'] },
      body: 'v2',
    });
    expect(httpPollOutcomeOf({})).toBeUndefined();
    expect(httpPollOutcomeOf({ ...outputs, code: '200' })).toBeUndefined();
    expect(httpPollOutcomeOf({ ...outputs, headers: [] })).toBeUndefined();
  });
});
