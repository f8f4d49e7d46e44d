/**
 * Draw `index` (0, 1, 2…) of the generator seeded with `seed`: a number in [0, 1).
 *
 * Counter-based (splitmix32: the seed plus `index + 1` golden-ratio steps, then the murmur3
 * finalizer), so any draw is computed directly from the seed and its index: a rule keeps only
 * how many draws it took, and after a restart its sequence goes on exactly where it stopped.
 * The same seed gives the same sequence on every machine (32-bit integer arithmetic only).
 */
export function drawAt(seed: number, index: number): number {
  let z = (seed + Math.imul(index + 1, 0x9e3779b9)) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  z ^= z >>> 16;
  return (z >>> 0) / 4_294_967_296;
}

/** Largest seed: seeds are unsigned 32-bit integers. */
export const MAX_SEED = 0xffff_ffff;
