// Response and output item ids: a stored response's ids lead back to its workflow, an unstored one's to nothing.
import {
  outputItemId,
  responseIdOf,
  responseOfItem,
  workflowIdOfResponse,
} from '../../../src/gateway/response-id';

const workflowId = 'switchyard-call-gw-3f1c2a9e-6d1b-4e0a-9a57-2b8c1d0e4f11';

test('a stored response id names its workflow; an unstored one, or one edited, names none', () => {
  const stored = responseIdOf(workflowId, true);
  expect(workflowIdOfResponse(stored)).toBe(workflowId);
  expect(workflowIdOfResponse(responseIdOf(workflowId, false))).toBeUndefined();
  expect(workflowIdOfResponse(`${stored}x`)).toBeUndefined();
  expect(workflowIdOfResponse('resp_s')).toBeUndefined();
  expect(workflowIdOfResponse('resp_s%%%')).toBeUndefined();
});

test("a stored response's item ids name the response, whatever the kind and ordinal; an unstored one's name none", () => {
  const stored = responseIdOf(workflowId, true);
  for (const prefix of ['msg', 'fc', 'rs'] as const) {
    for (const ordinal of [0, 3, 12]) {
      const id = outputItemId(stored, prefix, ordinal);
      expect(id.startsWith(`${prefix}_`)).toBe(true);
      expect(responseOfItem(id)).toBe(stored);
    }
  }
  expect(outputItemId(stored, 'fc', 1)).not.toBe(outputItemId(stored, 'fc', 2));
  const unstored = responseIdOf(workflowId, false);
  expect(responseOfItem(outputItemId(unstored, 'msg', 0))).toBeUndefined();
  // OpenAI's own reasoning item ids, and ids edited by hand, name nothing either.
  expect(responseOfItem('rs_68af3c9b2d5c8190a1b2c3d4e5f60718')).toBeUndefined();
  expect(responseOfItem(`${outputItemId(stored, 'msg', 0)}x`)).toBeUndefined();
});
