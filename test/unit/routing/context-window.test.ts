// The context-window check: the prompt's token bound plus the output cap against a target's window.
import { checkContextWindow, contextWindowMessage } from '../../../src/routing/context-window';

test('no configured window always fits', () => {
  expect(checkContextWindow({}, 10_000_000, 1_000_000)).toEqual({ fits: true });
});

test('fits up to the window exactly, and not one token beyond it', () => {
  expect(checkContextWindow({ contextWindow: 1_000 }, 600, 400)).toEqual({ fits: true });
  const over = checkContextWindow({ contextWindow: 1_000 }, 601, 400);
  expect(over).toEqual({ fits: false, neededTokens: 1_001, windowTokens: 1_000 });
  if (!over.fits)
    expect(contextWindowMessage(over)).toBe(
      'needs up to 1001 tokens (prompt bound plus maxOutputTokens), window 1000',
    );
});
