import { KILL_CHECK_CLOCK_MARGIN_MS, mayHaveMissedKill } from './killed-jobs';

const FOLLOWING_SINCE = Date.parse('2026-11-30T10:00:00.000Z');
const at = (offsetMs: number) => new Date(FOLLOWING_SINCE + offsetMs).toISOString();

describe('kills broadcast before a controller followed them: which jobs need the execution store', () => {
  it('checks every job while the controller does not follow broadcasts yet (just started)', () => {
    expect(mayHaveMissedKill(at(-3_600_000), undefined)).toBe(true);
    expect(mayHaveMissedKill(at(3_600_000), undefined)).toBe(true);
  });

  it('checks jobs queued before it followed broadcasts, and those within the clock margin after', () => {
    expect(mayHaveMissedKill(at(-6 * 3_600_000), FOLLOWING_SINCE)).toBe(true);
    expect(mayHaveMissedKill(at(0), FOLLOWING_SINCE)).toBe(true);
    // The executor's clock may run ahead of this controller's.
    expect(mayHaveMissedKill(at(KILL_CHECK_CLOCK_MARGIN_MS - 1), FOLLOWING_SINCE)).toBe(true);
  });

  it('leaves jobs queued later to the broadcast (their kill comes after them), and checks a job whose time cannot be read', () => {
    expect(mayHaveMissedKill(at(KILL_CHECK_CLOCK_MARGIN_MS), FOLLOWING_SINCE)).toBe(false);
    expect(mayHaveMissedKill(at(3_600_000), FOLLOWING_SINCE)).toBe(false);
    expect(mayHaveMissedKill('not a time', FOLLOWING_SINCE)).toBe(true);
  });
});
