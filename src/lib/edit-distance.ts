/**
 * Edit distance between short names, for "did you mean" suggestions (a mistyped flag,
 * parameter or column).
 */

/**
 * The optimal-string-alignment distance of `a` and `b`: insertions, deletions, substitutions
 * and swaps of two neighbouring characters each cost 1 (`prot` → `port` is 1). Never throws.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `name`, if it is close enough to be a likely typo (at most a third
 * of the name's length, and at least 1, edits away; or `name` is a prefix of it); else
 * undefined. Ties go to the earlier candidate. Never throws.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance =
      candidate.startsWith(name) && name.length >= 1
        ? Math.min(1, editDistance(name, candidate))
        : editDistance(name, candidate);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
