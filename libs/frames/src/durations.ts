import type { Duration } from './generated/google/protobuf/duration';

// Frames carry google.protobuf.Duration; the rest of Lanner counts milliseconds.

export function durationFromMillis(millis: number): Duration {
  if (!Number.isFinite(millis) || millis < 0) {
    throw new RangeError(`a duration must be a finite, non-negative number of milliseconds, got ${millis}`);
  }
  // Millisecond precision is all Lanner schedules with; rounding keeps nanos < 1e9.
  const whole = Math.round(millis);
  return { seconds: Math.floor(whole / 1000), nanos: (whole % 1000) * 1_000_000 };
}

/** Milliseconds of a Duration; an unset Duration is undefined (e.g. "no timeout"). */
export function millisFromDuration(duration: Duration | undefined): number | undefined {
  if (duration === undefined) return undefined;
  return duration.seconds * 1000 + duration.nanos / 1_000_000;
}
