// The fake's Responses request checks and reasoning encryption, called directly: what passes and what is refused.
import { decryptReasoning, encryptReasoning } from '../../../src/fake-provider/reasoning-encryption';
import { validateResponsesRequest } from '../../../src/fake-provider/responses-validate';

const valid = { model: 'gpt-x', input: 'hi', store: false };

describe('reasoning encryption', () => {
  it('opens only what it sealed, unchanged', () => {
    const sealed = encryptReasoning({ id: 'rs_1', text: 'Two and two.' });
    expect(decryptReasoning(sealed)).toEqual({ id: 'rs_1', text: 'Two and two.' });
    expect(sealed).not.toContain(':');
    const [prefix, payload, mac] = sealed.split('.');
    const forged = Buffer.from(JSON.stringify({ id: 'rs_1', text: 'Three.' })).toString('base64url');
    expect(decryptReasoning(`${prefix}.${forged}.${mac}`)).toBeUndefined();
    expect(decryptReasoning(`${prefix}.${payload}.${mac}x`)).toBeUndefined();
    expect(decryptReasoning('gAAAAABfake')).toBeUndefined();
  });
});

describe('validateResponsesRequest', () => {
  it('passes a plain request', () => {
    expect(validateResponsesRequest(valid)).toBeUndefined();
  });

  it.each([
    [{ include: ['reasoning.everything'] }, 'include[0]', 'invalid_value'],
    [{ reasoning: { effort: 'max' } }, 'reasoning.effort', 'invalid_value'],
    [{ reasoning: { effort: 'low', budget: 10 } }, 'reasoning.budget', 'unknown_parameter'],
    [{ metadata: { key: 7 } }, 'metadata.key', 'invalid_type'],
    [{ tools: [{ type: 'function', name: 'has space' }] }, 'tools[0].name', 'invalid_value'],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type', 'invalid_value'],
    [{ input: { role: 'user', content: 'hi' } }, 'input', 'invalid_type'],
    [{ input: [{ role: 'tool', content: 'x' }] }, 'input[0].role', 'invalid_value'],
    [{ input: [{ role: 'user', content: 'x', id: 'msg_1' }] }, 'input[0].id', 'unknown_parameter'],
  ])('refuses %j at %s', (fields, param, code) => {
    expect(validateResponsesRequest({ ...valid, ...fields })).toMatchObject({ param, code });
  });

  it('refuses background mode and a stored conversation, which need state the fake never keeps', () => {
    expect(validateResponsesRequest({ ...valid, background: true })).toMatchObject({ param: 'background' });
    expect(validateResponsesRequest({ ...valid, conversation: 'conv_1' })).toMatchObject({
      param: 'conversation',
      status: 404,
    });
  });
});
