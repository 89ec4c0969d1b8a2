import { inspect } from 'node:util';
import fc from 'fast-check';
import { RegistrationTokenSecret, formatProblems, planSetup } from '../index';
import { TOKEN_A, TOKEN_B, problemsOf, validate } from './setup-fixtures';

describe('topology: token values never appear in problems, plans or log lines', () => {
  it('the plan carries tokens by name and source; the value prints as redacted', () => {
    const declared = validate(
      {
        workerGroups: [
          {
            id: 'w',
            registrationTokens: [
              { name: 'a', token: TOKEN_A },
              { name: 'b', tokenFile: '/t' },
            ],
          },
        ],
      },
      undefined,
      { '/t': TOKEN_B },
    );
    if (!declared.ok) throw new Error('fixture must be valid');
    const plan = planSetup(declared.setup, { workerQueueIds: [], workerGroupIds: [] });
    for (const printed of [JSON.stringify(plan), inspect(plan, { depth: null }), String(plan.steps[0].logLine), plan.summary]) {
      expect(printed).not.toContain(TOKEN_A);
      expect(printed).not.toContain(TOKEN_B);
    }
    const step = plan.steps[0];
    const tokens = step.action === 'CREATE' && step.kind === 'worker-group' ? step.group.registrationTokens : [];
    // The code that stores the token (as a hash) still gets the value.
    expect(tokens.map((t) => [t.name, t.source, t.secret.reveal()])).toEqual([
      ['a', { kind: 'config' }, TOKEN_A],
      ['b', { kind: 'file', path: '/t' }, TOKEN_B],
    ]);
  });

  it('a secret prints as redacted however it is printed', () => {
    const secret = new RegistrationTokenSecret(TOKEN_A);
    expect(`${secret}`).not.toContain(TOKEN_A);
    expect(JSON.stringify({ secret })).not.toContain(TOKEN_A);
    expect(inspect(secret)).not.toContain(TOKEN_A);
  });

  it('property: whatever the declared values, no problem message repeats one', () => {
    // Malformed values carry a character no message uses, so a hit can only be a leak;
    // well-formed ones are long random strings, so the same holds.
    const value = fc.oneof(
      fc.string({ maxLength: 40 }).map((s) => `Ω${s}`),
      fc.stringMatching(/^[A-Za-z0-9_-]{43,60}$/),
    );
    fc.assert(
      fc.property(value, value, (inline, fromFile) => {
        const problems = problemsOf(
          validate(
            {
              workerGroups: [
                {
                  id: 'w',
                  registrationTokens: [
                    { name: 'a', token: inline },
                    { name: 'b', tokenFile: '/t' },
                    { name: 'c', token: inline },
                  ],
                },
              ],
            },
            undefined,
            { '/t': fromFile },
            { [inline]: 'other' },
          ),
        );
        expect(problems.length).toBeGreaterThan(0);
        const text = formatProblems(problems);
        expect(text).not.toContain(inline.trim());
        expect(text).not.toContain(fromFile.trim());
      }),
    );
  });
});
