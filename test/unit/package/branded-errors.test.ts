// Errors stay recognisable when an application loads two copies of Switchyard: instanceof and isInstance check a
// brand, not class identity. Each copy is loaded in its own module registry, as two installs would be.

type ErrorClass = (abstract new (...args: never[]) => Error) & { isInstance?: (value: unknown) => boolean };

function loadCopy(entry: string): Record<string, unknown> {
  let copy: Record<string, unknown> = {};
  jest.isolateModules(() => {
    copy = require(entry) as Record<string, unknown>;
  });
  return copy;
}

function errorClassesOf(copy: Record<string, unknown>): [string, ErrorClass][] {
  return Object.entries(copy).filter(
    (entry): entry is [string, ErrorClass] =>
      typeof entry[1] === 'function' && (entry[1] as { prototype?: unknown }).prototype instanceof Error,
  );
}

describe.each(['../../../src/index', '../../../src/workflow/index'])('two copies of %s', (entry) => {
  const first = loadCopy(entry);
  const second = loadCopy(entry);
  const classes = errorClassesOf(first).filter(([name]) => name !== 'RoutedCallFailure');

  it('are really two copies, with error classes to compare', () => {
    expect(classes.length).toBeGreaterThan(0);
    for (const [name, errorClass] of classes) expect(second[name]).not.toBe(errorClass);
  });

  it('recognise each other’s errors, with instanceof and with isInstance', () => {
    for (const [name, errorClass] of classes) {
      const other = second[name] as ErrorClass;
      const made = Object.create(errorClass.prototype) as Error;
      expect({ name, isInstance: typeof other.isInstance }).toEqual({ name, isInstance: 'function' });
      expect({ name, instanceOf: made instanceof other, isInstance: other.isInstance!(made) }).toEqual({
        name,
        instanceOf: true,
        isInstance: true,
      });
    }
  });

  it('do not take a plain Error, or another class’s error, for theirs', () => {
    for (const [name, errorClass] of classes) {
      expect({ name, plain: new Error('x') instanceof errorClass }).toEqual({ name, plain: false });
      expect({ name, plain: errorClass.isInstance!(new Error('x')) }).toEqual({ name, plain: false });
    }
  });
});

describe('two copies of the client', () => {
  const first = loadCopy('../../../src/index') as typeof import('../../../src/index');
  const second = loadCopy('../../../src/index') as typeof import('../../../src/index');

  it('recognise a routed-call error the other made, with its fields', () => {
    const error = new first.RoutedCallError(
      'no target answered',
      'AllTargetsFailed',
      'switchyard-call-x',
      undefined,
    );
    expect(error instanceof second.RoutedCallError).toBe(true);
    expect(second.RoutedCallError.isInstance(error)).toBe(true);
    expect(second.InvalidRequestError.isInstance(error)).toBe(false);
    expect(error instanceof second.InvalidRequestError).toBe(false);
  });

  it('keep a subclass an instance of its base across copies', () => {
    const base = second.CodecSettingsError;
    const sub = first.CodecKeyError;
    const made = Object.create(sub.prototype) as Error;
    expect(made instanceof base).toBe(true);
    expect(base.isInstance(made)).toBe(true);
    // And not the other way round: a base error is no subclass error.
    expect(second.CodecKeyError.isInstance(Object.create(first.CodecSettingsError.prototype))).toBe(false);
  });
});
