import { EXECUTION_RECORD_STATES, TASK_RUN_RECORD_STATES } from '@lanner/model';
import { EXECUTION_TRANSITIONS, IllegalTransition, TASK_RUN_TRANSITIONS, isTerminal, transition } from '../index';

describe('transition tables', () => {
  describe('execution', () => {
    for (const from of EXECUTION_RECORD_STATES) {
      for (const to of EXECUTION_RECORD_STATES) {
        const allowed = EXECUTION_TRANSITIONS[from].includes(to);
        it(`${from} -> ${to} is ${allowed ? 'accepted' : 'refused'}`, () => {
          if (allowed) expect(transition('execution', from, to)).toBe(to);
          else expect(() => transition('execution', from, to, 'e1')).toThrow(IllegalTransition);
        });
      }
    }
  });

  describe('task run', () => {
    for (const from of TASK_RUN_RECORD_STATES) {
      for (const to of TASK_RUN_RECORD_STATES) {
        const allowed = TASK_RUN_TRANSITIONS[from].includes(to);
        it(`${from} -> ${to} is ${allowed ? 'accepted' : 'refused'}`, () => {
          if (allowed) expect(transition('task run', from, to)).toBe(to);
          else expect(() => transition('task run', from, to, 't1')).toThrow(IllegalTransition);
        });
      }
    }
  });

  it('names from and to in the refusal', () => {
    expect(() => transition('task run', 'SUCCESS', 'RUNNING', 'exec:a')).toThrow(
      'Illegal task run transition SUCCESS -> RUNNING (exec:a)',
    );
  });

  it('holds the core of FLOWS.md', () => {
    expect(EXECUTION_TRANSITIONS.CREATED).toEqual(expect.arrayContaining(['QUEUED', 'RUNNING', 'CANCELLED', 'FAILED']));
    expect(EXECUTION_TRANSITIONS.KILLING).toEqual(['KILLED']);
    // A restart goes through the flow's concurrency limit as a new execution does.
    expect(EXECUTION_TRANSITIONS.RESTARTED).toEqual(expect.arrayContaining(['RUNNING', 'QUEUED', 'CANCELLED', 'FAILED']));
    expect(TASK_RUN_TRANSITIONS.RESUBMITTED).toEqual(expect.arrayContaining(['SUBMITTED', 'FAILED']));
    expect(TASK_RUN_TRANSITIONS.FAILED).toContain('RETRYING');
    expect(TASK_RUN_TRANSITIONS.RETRYING).toEqual(expect.arrayContaining(['SUBMITTED', 'RETRIED']));
  });

  it('leaves only restart (and retry) ways out of terminal states', () => {
    for (const from of TASK_RUN_RECORD_STATES.filter(isTerminal)) {
      for (const to of TASK_RUN_TRANSITIONS[from]) expect(['RESTARTED', 'RETRYING']).toContain(to);
    }
  });
});
