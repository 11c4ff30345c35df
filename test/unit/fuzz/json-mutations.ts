// Random single mutations of a valid JSON-like document (delete, replace with junk, add a key) at a random path.
import fc from 'fast-check';

export type PathSegment = string | number;
export type Path = readonly PathSegment[];

/** One change made to a document: what was done, and where. */
export interface Mutation {
  readonly kind: 'delete' | 'replace' | 'add-key' | 'duplicate';
  /** The path of the field that was deleted, replaced or added. */
  readonly path: Path;
  /** The value written (absent for a delete). */
  readonly value?: unknown;
}

/** Keys that reach into `Object.prototype` when a record is indexed without an own-property check. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
];

/** Every path in `document` that holds a value, the root excluded, parents before children. */
export function pathsOf(document: unknown, prefix: Path = []): Path[] {
  if (document === null || typeof document !== 'object') return [];
  const entries: [PathSegment, unknown][] = Array.isArray(document)
    ? document.map((value, index) => [index, value])
    : Object.entries(document);
  return entries.flatMap(([key, value]) => {
    const path = [...prefix, key];
    return [path, ...pathsOf(value, path)];
  });
}

/** Paths of objects (not arrays): where an unknown key can be added. */
export function objectPathsOf(document: unknown): Path[] {
  return [[], ...pathsOf(document)].filter((path) => {
    const value = valueAt(document, path);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  });
}

export function valueAt(document: unknown, path: Path): unknown {
  return path.reduce<unknown>((value, key) => (value as Record<PathSegment, unknown>)[key], document);
}

/** A deep copy of `document` with `mutation` applied; own properties only, so `__proto__` stays a plain key. */
export function applyMutation(document: unknown, mutation: Mutation): unknown {
  const copy = structuredClone(document);
  const parent = valueAt(copy, mutation.path.slice(0, -1)) as Record<PathSegment, unknown> | unknown[];
  const key = mutation.path[mutation.path.length - 1]!;
  if (mutation.kind === 'duplicate') {
    (parent as unknown[]).splice(
      (key as number) + 1,
      0,
      structuredClone((parent as unknown[])[key as number]),
    );
  } else if (mutation.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else {
    Object.defineProperty(parent, key, {
      value: mutation.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** Text a person or a bad script might put anywhere: empty, blank, unicode, control characters, very long. */
export const junkString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '-',
    '--',
    '\u0000',
    'null',
    'NaN',
    '0',
    '-1',
    '1e309',
    '💥',
    'ü\u0301',
    '\u202e',
  ),
  fc.constantFrom(...PROTOTYPE_KEYS),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.nat({ max: 5_000 }).map((length) => 'x'.repeat(length + 200)),
);

/** Numbers at and past every edge: negative, zero, fractions, NaN, the infinities, unsafe and huge values. */
export const junkNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    -0,
    0.5,
    1.5,
    NaN,
    Infinity,
    -Infinity,
    2 ** 53 + 2,
    1e308,
    -1e308,
    Number.MIN_VALUE,
  ),
  fc.integer(),
  fc.double(),
);

/** A value nested `depth` levels deep, alternating arrays and objects. */
function deepJunk(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = level % 2 ? [value] : { nested: value };
  return value;
}

/** Any wrong thing a field could hold: other types, edge numbers, junk text, empty or deep containers. */
export const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, [], {}, [null], { '': '' }),
  junkNumber,
  junkString,
  fc.nat({ max: 2_000 }).map(deepJunk),
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1 }),
);

/** A key to add to an object: prototype keys, junk, or plausible misspellings. */
export const junkKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PROTOTYPE_KEYS),
  junkString,
  fc.constantFrom('extra', 'Targets', 'model ', 'apikey'),
);

/**
 * One mutation of `document` at a random path: delete the field, replace it with a junk value, add a junk
 * key to an object, or repeat an array item. `extraValues` are domain values tried as replacements too (a route naming an unknown
 * provider, a bad enum), since blind junk rarely hits them.
 */
export function mutationOf(document: unknown, extraValues: readonly unknown[] = []): fc.Arbitrary<Mutation> {
  const paths = pathsOf(document);
  const objects = objectPathsOf(document);
  const replacement = extraValues.length
    ? fc.oneof({ arbitrary: junkValue, weight: 3 }, { arbitrary: fc.constantFrom(...extraValues), weight: 2 })
    : junkValue;
  const arrayItems = paths.filter((path) => typeof path[path.length - 1] === 'number');
  return fc.oneof(
    fc.constantFrom(...paths).map((path): Mutation => ({ kind: 'delete', path })),
    // The same target, message or failover class twice.
    fc.constantFrom(...arrayItems).map((path): Mutation => ({ kind: 'duplicate', path })),
    {
      arbitrary: fc
        .record({ path: fc.constantFrom(...paths), value: replacement })
        .map(({ path, value }): Mutation => ({ kind: 'replace', path, value })),
      weight: 3,
    },
    fc
      .record({ path: fc.constantFrom(...objects), key: junkKey, value: junkValue })
      .filter(({ path, key }) => !Object.hasOwn(valueAt(document, path) as object, key))
      .map(({ path, key, value }): Mutation => ({ kind: 'add-key', path: [...path, key], value })),
  );
}

/**
 * What "an error names the field" means for a field at `field`: the error's path is that field, lies inside it
 * (junk put there is refused deeper down), or is its direct parent (a deleted array item leaves a list too
 * short; an object is refused as a whole). Segments compare as text, since an error's path holds numbers
 * where a mutation's may hold their strings.
 */
export function namesField(errorPath: Path, field: Path): boolean {
  if (errorPath.length < field.length - 1) return false;
  const length = Math.min(errorPath.length, field.length);
  for (let index = 0; index < length; index += 1) {
    if (String(errorPath[index]) !== String(field[index])) return false;
  }
  return true;
}
