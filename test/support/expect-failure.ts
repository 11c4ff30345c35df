// Awaits a routed call that must fail and returns its typed error for assertions.
import { RoutedCallError } from '../../src/client/errors';

export async function expectRoutedCallError(promise: Promise<unknown>): Promise<RoutedCallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RoutedCallError) return error;
    throw error;
  }
  throw new Error('expected the routed call to fail, but it succeeded');
}
