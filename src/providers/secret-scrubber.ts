// Removes the configured API keys by value from anything a provider adapter returns or logs. Worker side.

/** What a key is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Values shorter than this are not scrubbed: a key that short is no credential worth mangling every answer
 * that happens to contain it (real provider keys are 40 characters and more).
 */
export const MIN_SECRET_LENGTH = 8;

/** Deeper than any provider answer or usage object nests: beyond it a value is replaced, not searched. */
const MAX_DEPTH = 64;

/**
 * Replaces every occurrence of any of the given secrets, wherever it is: field-by-field rules (codes and
 * request ids kept only when identifier-shaped) let through a key that is shaped like an identifier, so the
 * values themselves are searched for in whatever crosses into history, logs or errors.
 */
export class SecretScrubber {
  private readonly secrets: readonly string[];

  constructor(secrets: Iterable<string>) {
    // Longest first, so a key that contains another is replaced whole.
    this.secrets = [...new Set(secrets)]
      .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
      .sort((left, right) => right.length - left.length);
  }

  /**
   * The keys in the order {@link text} replaces them (longest first): a stream scrubber must replace them in the
   * same order to end with the same text.
   */
  get secretsInOrder(): readonly string[] {
    return this.secrets;
  }

  /** True when there is nothing to scrub. */
  get empty(): boolean {
    return this.secrets.length === 0;
  }

  /** `text` with every secret replaced by {@link REDACTED}. */
  text(text: string): string {
    let scrubbed = text;
    for (const secret of this.secrets) {
      if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
    }
    return scrubbed;
  }

  /**
   * A copy of a JSON-like value with every string scrubbed, object keys included, as JSON would carry it (own
   * enumerable members; dates kept). Shared subtrees are copied each time; anything nested deeper than a
   * provider's answer ever is becomes {@link REDACTED} rather than being searched or passed on.
   */
  value<Value>(value: Value): Value {
    if (this.empty) return value;
    return this.copy(value, 0) as Value;
  }

  private copy(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null || value instanceof Date) return value;
    if (depth > MAX_DEPTH) return REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.copy(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [this.text(key), this.copy(item, depth + 1)]),
    );
  }
}
