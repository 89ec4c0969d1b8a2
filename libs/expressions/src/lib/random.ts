// Kestra's uuid(), id() and randomInt(). The expression library draws no
// randomness itself: the renderer passes a RandomSource (the executor gives a
// cryptographic one; a test a fixed sequence).
import { type Arguments, BuiltinError } from './builtins';

/** Where the random functions draw from. */
export interface RandomSource {
  /** A uniformly drawn integer in [0, 2^32). */
  nextUint32(): number;
}

const TWO_POW_32 = 4_294_967_296;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function draw(random: RandomSource): number {
  const value = random.nextUint32();
  if (!Number.isInteger(value) || value < 0 || value >= TWO_POW_32) throw new Error('RandomSource.nextUint32 out of range');
  return value;
}

/** 16 random bytes with the version-4 and IETF-variant bits of a UUID set. */
function uuidBytes(random: RandomSource): number[] {
  const bytes: number[] = [];
  for (let word = 0; word < 4; word++) {
    const value = draw(random);
    bytes.push((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
  }
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return bytes;
}

/** Kestra's uuid(): a random (version 4) UUID, lower-case hex with dashes. */
export function randomUuid(random: RandomSource): string {
  const hex = uuidBytes(random)
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Kestra's id(): a short unique id, a random UUID written in base 62 (as Kestra's FriendlyId). */
export function randomId(random: RandomSource): string {
  let value = uuidBytes(random).reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
  let text = '';
  while (value > 0n) {
    text = BASE62[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text === '' ? '0' : text;
}

/** Kestra's randomInt(lower, upper): a whole number from lower (included) to upper (excluded). */
export function randomInt(a: Arguments, random: RandomSource): number {
  const lower = a.named.has('lower') ? a.named.get('lower') : a.args[0];
  const upper = a.named.has('upper') ? a.named.get('upper') : a.args[1];
  for (const [name, value] of [
    ['lower', lower],
    ['upper', upper],
  ] as const) {
    if (value === undefined) throw new BuiltinError(`'randomInt' needs an argument ${name}`);
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new BuiltinError(`'randomInt' needs a whole number for ${name}`);
    }
  }
  const low = lower as number;
  const high = upper as number;
  if (high < low) throw new BuiltinError("'randomInt': upper is less than lower");
  // Two draws give 53 bits: enough for any span of safe integers without a visible bias.
  const fraction = (draw(random) * 2 ** 21 + (draw(random) >>> 11)) / 2 ** 53;
  return Math.floor(fraction * (high - low)) + low;
}
