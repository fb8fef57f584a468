/**
 * The order of a benchmark's runs within a round: each round starts one server later, so no
 * server always runs in the same slot (measured on this machine: the same build ran 8-12% faster
 * as the third of three leveldaps than as the first, in every round of a run that did not rotate).
 */

/** `items` starting at item `round` (mod its length). */
export function rotated<T>(items: readonly T[], round: number): T[] {
  const shift = items.length === 0 ? 0 : round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
