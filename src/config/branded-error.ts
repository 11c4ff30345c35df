// The base of Switchyard's exported errors: recognised across copies of the package by a brand, not class identity.
// Pure; safe in workflow code.

type BrandedClass = abstract new (...args: never[]) => unknown;

/** The brand a class declares as its own (not one it inherits), if any. */
function ownBrand(candidate: unknown): string | undefined {
  if (typeof candidate !== 'function' || !Object.hasOwn(candidate, 'brand')) return undefined;
  const brand = (candidate as { brand?: unknown }).brand;
  return typeof brand === 'string' ? brand : undefined;
}

/** Whether `value`'s prototype chain holds a class that declares `brand`. */
function carriesBrand(value: unknown, brand: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (
    let prototype = Object.getPrototypeOf(value);
    prototype !== null;
    prototype = Object.getPrototypeOf(prototype)
  ) {
    if (Object.hasOwn(prototype, 'constructor') && ownBrand(prototype.constructor) === brand) return true;
  }
  return false;
}

/**
 * The base of every error class Switchyard exports. Each class declares its own `brand`; `instanceof` and
 * `isInstance` check it, so an application that loads two copies of the package (the client and the worker entry
 * points resolved from two installs, say) still recognises an error another copy made, where class identity
 * alone would say no. A subclass that declares no brand of its own keeps ordinary `instanceof`.
 */
export abstract class SwitchyardError extends Error {
  /** The class's name, the same in every copy of the package: `switchyard.<ClassName>`. */
  static readonly brand: string = 'switchyard.SwitchyardError';

  static override [Symbol.hasInstance](this: BrandedClass, value: unknown): boolean {
    const brand = ownBrand(this);
    if (brand === undefined) return Function.prototype[Symbol.hasInstance].call(this, value);
    return carriesBrand(value, brand);
  }

  /** Whether `value` is an instance of this class, made by this copy of Switchyard or by another loaded beside it. */
  static isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    return value instanceof this;
  }
}
