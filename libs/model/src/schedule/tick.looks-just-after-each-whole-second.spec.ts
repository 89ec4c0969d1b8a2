import { delayToNextTick } from './tick';

describe('the scheduler looks just after each whole tick of the clock', () => {
  const at = (iso: string) => Date.parse(iso);

  it('waits until the next whole second plus the offset, wherever in the second it is', () => {
    expect(delayToNextTick(at('2026-12-03T12:00:00.000Z'), 1000, 2)).toBe(1002);
    expect(delayToNextTick(at('2026-12-03T12:00:00.001Z'), 1000, 2)).toBe(1001);
    expect(delayToNextTick(at('2026-12-03T12:00:00.600Z'), 1000, 2)).toBe(402);
    expect(delayToNextTick(at('2026-12-03T12:00:00.999Z'), 1000, 2)).toBe(3);
  });

  it('lands every look on the same phase of the tick', () => {
    let now = at('2026-12-03T12:00:00.437Z');
    const looks: number[] = [];
    for (let index = 0; index < 5; index++) {
      now += delayToNextTick(now, 1000, 2) + 13; // the evaluation itself takes 13 ms
      looks.push(now - 13);
    }
    expect(looks.map((look) => new Date(look).toISOString())).toEqual([
      '2026-12-03T12:00:01.002Z',
      '2026-12-03T12:00:02.002Z',
      '2026-12-03T12:00:03.002Z',
      '2026-12-03T12:00:04.002Z',
      '2026-12-03T12:00:05.002Z',
    ]);
  });

  it('keeps to the multiples of a longer tick', () => {
    expect(delayToNextTick(at('2026-12-03T12:00:07.500Z'), 5000, 0)).toBe(2500);
  });
});
