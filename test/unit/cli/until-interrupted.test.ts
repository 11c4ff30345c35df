// Waiting for a call unless SIGINT / SIGTERM arrives first, and leaving no signal handlers behind.
import { EventEmitter } from 'node:events';
import { untilInterrupted } from '../../../src/cli/until-interrupted';

const listeners = (signals: EventEmitter) =>
  signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM');

test('settles with the value or the error when the work ends first, and removes its handlers', async () => {
  const signals = new EventEmitter();
  await expect(untilInterrupted(Promise.resolve(42), signals)).resolves.toEqual({
    kind: 'fulfilled',
    value: 42,
  });
  const error = new Error('call failed');
  await expect(untilInterrupted(Promise.reject(error), signals)).resolves.toEqual({
    kind: 'rejected',
    error,
  });
  expect(listeners(signals)).toBe(0);
});

test.each(['SIGINT', 'SIGTERM'])('%s interrupts the wait and removes both handlers', async (signal) => {
  const signals = new EventEmitter();
  const waiting = untilInterrupted(new Promise<never>(() => undefined), signals);
  expect(listeners(signals)).toBe(2);
  signals.emit(signal);
  await expect(waiting).resolves.toEqual({ kind: 'interrupted' });
  expect(listeners(signals)).toBe(0);
});
