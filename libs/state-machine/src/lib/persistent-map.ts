// A persistent (immutable, structurally shared) string-keyed map: a hash trie of
// 32-way branches. `set`/`delete` copy only the branches on the path to the key
// (about log32(n) arrays of 32 slots), so an execution with 10,000 task runs
// gets a new value per event without copying the other 9,999 entries, and every
// earlier execution value stays valid (idempotence checks compare them).

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;
/** 32-bit hashes run out after 7 levels; deeper keys share a collision bucket. */
const MAX_SHIFT = 30;

interface Leaf<V> {
  readonly t: 0;
  readonly hash: number;
  readonly key: string;
  readonly value: V;
}
interface Bucket<V> {
  readonly t: 1;
  readonly hash: number;
  readonly leaves: readonly Leaf<V>[];
}
interface Branch<V> {
  readonly t: 2;
  readonly slots: readonly (Slot<V> | undefined)[];
}
type Slot<V> = Leaf<V> | Bucket<V> | Branch<V>;

/**
 * Hashes are memoised: a task-run id is looked up many times per event, and a
 * JS Map finds a string through the engine's own cached string hash, which is
 * cheaper than re-running FNV over the id. The memo is bounded (cleared when
 * full), so memory does not grow with the number of executions handled.
 */
const HASH_MEMO_LIMIT = 65_536;
const hashMemo = new Map<string, number>();

export function hashString(text: string): number {
  let hash = hashMemo.get(text);
  if (hash === undefined) {
    if (hashMemo.size >= HASH_MEMO_LIMIT) hashMemo.clear();
    hash = fnv1a(text);
    hashMemo.set(text, hash);
  }
  return hash;
}

/** FNV-1a over UTF-16 code units: cheap, well spread for ids that share long prefixes. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const EMPTY_SLOTS: readonly undefined[] = new Array<undefined>(WIDTH).fill(undefined);

export class PersistentMap<V> {
  private static readonly emptyMap = new PersistentMap<never>(undefined, 0);

  private constructor(
    private readonly root: Branch<V> | undefined,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return PersistentMap.emptyMap as PersistentMap<V>;
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    let map = PersistentMap.empty<V>();
    for (const [key, value] of entries) map = map.set(key, value);
    return map;
  }

  get(key: string): V | undefined {
    let node: Slot<V> | undefined = this.root;
    if (node === undefined) return undefined;
    const hash = hashString(key);
    let shift = 0;
    while (node !== undefined) {
      if (node.t === 2) {
        node = node.slots[(hash >>> shift) & MASK];
        shift += BITS;
      } else if (node.t === 0) {
        return node.key === key ? node.value : undefined;
      } else {
        for (const leaf of node.leaves) if (leaf.key === key) return leaf.value;
        return undefined;
      }
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): PersistentMap<V> {
    const hash = hashString(key);
    const added = { count: 0 };
    const root = setIn(this.root ?? { t: 2, slots: EMPTY_SLOTS }, { t: 0, hash, key, value }, 0, added) as Branch<V>;
    return new PersistentMap(root, this.size + added.count);
  }

  delete(key: string): PersistentMap<V> {
    if (this.root === undefined || !this.has(key)) return this;
    const root = deleteIn(this.root, key, hashString(key), 0) as Branch<V> | undefined;
    return new PersistentMap(root, this.size - 1);
  }

  forEach(visit: (value: V, key: string) => void): void {
    if (this.root !== undefined) walk(this.root, visit);
  }

  values(): V[] {
    const out: V[] = [];
    this.forEach((value) => out.push(value));
    return out;
  }

  /**
   * The values of this map that `earlier` does not hold as the very same value
   * under the same key (added or replaced since), in no particular order; keys
   * deleted since are not reported. Branches both maps share are skipped, so for
   * a map derived from `earlier` by a few `set`s this costs about the changes
   * times log32(n), not n.
   */
  changedSince(earlier: PersistentMap<V>): V[] {
    const out: V[] = [];
    if (this.root !== undefined) {
      changedIn(this.root, earlier.root, (value, key) => {
        if (earlier.get(key) !== value) out.push(value);
      });
    }
    return out;
  }
}

/** Visits the entries of `node` that are not in a branch `earlier` shares at the same place. */
function changedIn<V>(node: Slot<V>, earlier: Slot<V> | undefined, visit: (value: V, key: string) => void): void {
  if (node === earlier) return;
  if (node.t === 2 && earlier !== undefined && earlier.t === 2) {
    for (let index = 0; index < WIDTH; index++) {
      const slot = node.slots[index];
      if (slot !== undefined) changedIn(slot, earlier.slots[index], visit);
    }
    return;
  }
  walk(node, visit);
}

function setIn<V>(node: Slot<V>, leaf: Leaf<V>, shift: number, added: { count: number }): Slot<V> {
  if (node.t === 2) {
    const index = (leaf.hash >>> shift) & MASK;
    const current = node.slots[index];
    const slots = node.slots.slice();
    if (current === undefined) {
      added.count = 1;
      slots[index] = leaf;
    } else {
      slots[index] = setIn(current, leaf, shift + BITS, added);
    }
    return { t: 2, slots };
  }
  if (node.t === 0) {
    if (node.key === leaf.key) return leaf;
    added.count = 1;
    if (node.hash === leaf.hash || shift > MAX_SHIFT) {
      // Equal 32-bit hashes (the only way to get past MAX_SHIFT) share a bucket.
      return { t: 1, hash: node.hash, leaves: [node, leaf] };
    }
    // Split: push the existing leaf one level down, then insert the new one.
    const slots = EMPTY_SLOTS.slice() as (Slot<V> | undefined)[];
    slots[(node.hash >>> shift) & MASK] = node;
    // The new leaf is already counted above.
    return setIn({ t: 2, slots }, leaf, shift, { count: 0 });
  }
  if (node.hash !== leaf.hash) {
    // A bucket only holds equal hashes; a different one splits here.
    const slots = EMPTY_SLOTS.slice() as (Slot<V> | undefined)[];
    slots[(node.hash >>> shift) & MASK] = node;
    return setIn({ t: 2, slots }, leaf, shift, added);
  }
  const at = node.leaves.findIndex((l) => l.key === leaf.key);
  const leaves = node.leaves.slice();
  if (at >= 0) leaves[at] = leaf;
  else {
    added.count = 1;
    leaves.push(leaf);
  }
  return { t: 1, hash: node.hash, leaves };
}

function deleteIn<V>(node: Slot<V>, key: string, hash: number, shift: number): Slot<V> | undefined {
  if (node.t === 0) return undefined;
  if (node.t === 1) {
    const leaves = node.leaves.filter((l) => l.key !== key);
    return leaves.length === 1 ? leaves[0] : { t: 1, hash: node.hash, leaves };
  }
  const index = (hash >>> shift) & MASK;
  const child = node.slots[index];
  if (child === undefined) return node;
  const replaced = deleteIn(child, key, hash, shift + BITS);
  const slots = node.slots.slice();
  slots[index] = replaced;
  // Collapse a branch left with a single leaf so lookups stay short.
  let remaining = 0;
  let only: Slot<V> | undefined;
  for (const slot of slots) {
    if (slot !== undefined) {
      remaining++;
      only = slot;
    }
  }
  if (remaining === 0) return undefined;
  if (remaining === 1 && only !== undefined && only.t !== 2 && shift > 0) return only;
  return { t: 2, slots };
}

function walk<V>(node: Slot<V>, visit: (value: V, key: string) => void): void {
  if (node.t === 0) visit(node.value, node.key);
  else if (node.t === 1) for (const leaf of node.leaves) visit(leaf.value, leaf.key);
  else for (const slot of node.slots) if (slot !== undefined) walk(slot, visit);
}
