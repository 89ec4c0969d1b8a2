import { Transform } from 'node:stream';
import { StorageFileTooLarge } from './storage.port';

/** Counts the bytes that pass and fails the stream with `StorageFileTooLarge` past `maxBytes`. */
export function byteCounter(maxBytes: number | undefined): Transform & { readonly bytes: () => number } {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (maxBytes !== undefined && seen > maxBytes) {
        done(new StorageFileTooLarge(maxBytes));
        return;
      }
      done(null, chunk);
    },
  });
  return Object.assign(counter, { bytes: () => seen });
}
