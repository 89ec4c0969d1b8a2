/**
 * A secret read from configuration (a password, an API or registration token),
 * wrapped as soon as it is read so that it cannot end up in a log line, an error
 * message or a JSON dump by accident: it prints as `[redacted <what>]`, and only
 * `reveal()` gives the value out, to the code that hashes it.
 */
export class RedactedSecret {
  readonly #value: string;
  readonly #redacted: string;

  constructor(value: string, what: string) {
    this.#value = value;
    this.#redacted = `[redacted ${what}]`;
  }

  /** The raw value: only for hashing it, never for logging or returning it. */
  reveal(): string {
    return this.#value;
  }

  /** The same value as `other` (two declarations of one secret). */
  sameAs(other: RedactedSecret): boolean {
    return this.#value === other.#value;
  }

  toString(): string {
    return this.#redacted;
  }

  toJSON(): string {
    return this.#redacted;
  }
}
