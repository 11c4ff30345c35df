// The size check of a routed call's input: what it refuses without a payload store, and what the refusal says.
import { checkCallInputSize, inlineMediaBytes } from '../../../src/client/call-input-size';
import { PayloadTooLargeError } from '../../../src/codec/payload-limits';
import { validateCallInput } from '../../../src/client/call-input';

const RULES = { limitBytes: 2 * 1024 * 1024, storeConfigured: false };
/** Base64 of about 2.2 MB of bytes that start like a PNG. */
const IMAGE_DATA = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(1_600_000, 7),
]).toString('base64');

const imageCall = validateCallInput({
  request: {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', data: IMAGE_DATA, mediaType: 'image/png' },
          { type: 'text', text: 'What is this?' },
        ],
      },
    ],
  },
});

function refusal(input: Parameters<typeof checkCallInputSize>[0]): PayloadTooLargeError {
  try {
    checkCallInputSize(input, RULES);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

test('an inline image over the limit is refused saying how much of the input it is, and what to do', () => {
  expect(inlineMediaBytes(imageCall.request)).toBe(IMAGE_DATA.length);
  const { message, limitBytes } = refusal(imageCall);
  expect(limitBytes).toBeLessThan(RULES.limitBytes);
  expect(message).toContain(
    `Its inline images and documents are ${IMAGE_DATA.length.toLocaleString('en-US')} bytes of it (base64): send images by https url instead, or store large payloads outside history: set SWITCHYARD_PAYLOAD_STORE_DIR`,
  );
  expect(message).not.toContain('Shorten it');
});

test('a long text prompt is told to shorten or use the store; with a store nothing is refused', () => {
  const textCall = validateCallInput({
    request: { messages: [{ role: 'user', content: 'x'.repeat(2_100_000) }] },
  });
  expect(inlineMediaBytes(textCall.request)).toBe(0);
  expect(refusal(textCall).message).toContain('Shorten it, or store large payloads outside history');
  expect(() => checkCallInputSize(imageCall, { ...RULES, storeConfigured: true })).not.toThrow();
});
