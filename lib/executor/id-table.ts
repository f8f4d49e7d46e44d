/**
 * Values by string id, for entries that come and go all the time and live long enough to cross
 * a turn of the event loop (calls in flight, writes waiting for their commit): a dictionary
 * object, not a `Map`.
 *
 * Why not a `Map`: once a long-lived Map's hash table is in the old generation, V8 allocates each
 * table it rehashes into there too, and every table left behind still points at the entries it
 * held until the next full GC. Every young call those old, dead tables point at then survives its
 * scavenges and is promoted. With 50 calls in flight through a Map, a scavenge copied and promoted
 * ~400 bytes a call more and took ~3× longer than with this table (see `id-table.test.ts` for the
 * property that matters, and docs/performance.md for the measurements).
 *
 * Keys keep their insertion order (ids are never integer-like strings: see `keys`).
 */
export class IdTable<V> {
  private entries: Record<string, V> = Object.create(null);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: string): V | undefined {
    return this.entries[id];
  }

  has(id: string): boolean {
    return this.entries[id] !== undefined;
  }

  /** `value` must not be undefined (that reads as absent). */
  set(id: string, value: V): this {
    if (this.entries[id] === undefined) this.count++;
    this.entries[id] = value;
    return this;
  }

  delete(id: string): boolean {
    if (this.entries[id] === undefined) return false;
    delete this.entries[id];
    this.count--;
    return true;
  }

  /** In insertion order, except that integer-like ids ("42") come first, in numeric order. */
  keys(): string[] {
    return Object.keys(this.entries);
  }

  values(): V[] {
    return Object.values(this.entries);
  }

  clear(): void {
    this.entries = Object.create(null);
    this.count = 0;
  }
}
