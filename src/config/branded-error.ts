// Errors that are recognised across copies of the package: a brand on the prototype instead of class identity.
// Pure; safe in workflow code.

/** The symbol that marks instances of the error class `name`, the same in every copy of Switchyard. */
function brandOf(name: string): symbol {
  return Symbol.for(`switchyard.error.${name}`);
}

/**
 * Whether `value` is an instance of the Switchyard error class `name` (or of a subclass), whichever copy of the
 * package made it. An application that loads two copies (the client and the worker entry points resolved from two
 * places, say) gets errors whose classes are not its own: `instanceof` on class identity alone would say no.
 */
export function hasErrorBrand(value: unknown, name: string): boolean {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brandOf(name)] === true
  );
}

/**
 * Brands `errorClass` as `name`: its instances carry the brand through the prototype chain, and `instanceof`
 * checks the brand, so an error made by another copy of the package still answers `instanceof` truly. Called from
 * the class's static block. A subclass that is not branded itself keeps ordinary `instanceof`.
 */
export function brandError(errorClass: abstract new (...args: never[]) => Error, name: string): void {
  const brand = brandOf(name);
  Object.defineProperty(errorClass.prototype, brand, { value: true });
  Object.defineProperty(errorClass, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      if (this !== errorClass) return Function.prototype[Symbol.hasInstance].call(this, value);
      return hasErrorBrand(value, name);
    },
  });
}
