/**
 * The partition of a key: FNV-1a (32 bit) over the key's UTF-8 bytes. Stable
 * across processes and releases, so a key always maps to the same partition of a
 * topic and its records stay in order.
 */
export function partitionForKey(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}
