// The known key a mistyped one most likely meant, by edit distance. Pure; workflow-safe.

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), case-insensitive: the number
 * of single-character edits between two keys. A few lines, so the workflow bundle needs no dependency for it.
 */
export function editDistance(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  // rows[i][j]: distance between the first i characters of a and the first j of b.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Length of the common prefix of two keys, case-insensitive. */
function commonPrefixLength(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length += 1;
  return length;
}

/**
 * The known key nearest to `key`, when it is near enough to be a typo of it: at most one edit per three
 * characters (at least one), or the same stem (all but the last character of the shorter key, at least 4):
 * `maxAttempt` finds `maxAttempts`, `retry` finds `retries`, `colour` finds nothing in `[targets]`. Ties go
 * to the key listed first.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const allowed = Math.max(1, Math.floor(key.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const shorter = Math.min(key.length, candidate.length);
    const sameStem = commonPrefixLength(key, candidate) >= Math.max(4, shorter - 1);
    const lengthDifference = Math.abs(candidate.length - key.length);
    // The distance is at least the difference in length: skip the table for keys that cannot be near (and
    // rank a shared stem by that difference, so a huge hostile key never builds a huge table).
    if (!sameStem && lengthDifference > allowed) continue;
    const distance = sameStem ? lengthDifference : editDistance(key, candidate);
    if ((sameStem || distance <= allowed) && (best === undefined || distance < best.distance)) {
      best = { key: candidate, distance };
    }
  }
  return best?.key;
}
