// The UTF-8 bytes of one code point under the worst of the normalizations a tokenizer may apply: builds and
// checks src/routing/normalization-expansion.ts. Script and test side (the result depends on the runtime's Unicode data).

/** Hangul syllables: NFD splits each into 2-3 jamo, and NFC / NFKC always compose them back into one. */
export const HANGUL_SYLLABLES = { first: 0xac00, last: 0xd7a3 } as const;

/** UTF-8 bytes of a well-formed string, by code point. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const codePoint = character.codePointAt(0)!;
    bytes += codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * The most UTF-8 bytes `codePoint` can take: as it is, or decomposed canonically or for compatibility (NFD,
 * NFKD). Composition never adds bytes (no composite is longer than its decomposition), so this also bounds
 * what NFC and NFKC make of it, except for Hangul syllables, which they always compose back and so take their
 * own 3 bytes.
 */
export function codePointWorstBytes(codePoint: number): number {
  const text = String.fromCodePoint(codePoint);
  const own = utf8Bytes(text);
  if (codePoint >= HANGUL_SYLLABLES.first && codePoint <= HANGUL_SYLLABLES.last) return own;
  return Math.max(own, utf8Bytes(text.normalize('NFD')), utf8Bytes(text.normalize('NFKD')));
}
