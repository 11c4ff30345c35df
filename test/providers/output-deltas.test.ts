// Both adapters hand each streamed piece of text and tool call to `onDelta` as it arrives, and the pieces add up
// to the answer they return; refusal text is never handed on.
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import type { OutputDelta } from '../../src/providers/types';
import { ADAPTERS, REQUEST as request } from './provider-fixtures';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => fake?.close());
beforeEach(() => fake.reset());

describe.each(ADAPTERS)('the $label adapter', (adapter) => {
  test('text pieces arrive in order and make the answer', async () => {
    fake.script('m', { kind: 'answer', text: 'one two three four five six seven eight nine ten' });
    const deltas: OutputDelta[] = [];
    const result = await adapter
      .create(fake)
      .generate('m', request, { timeoutMs: 5_000, stream: true, onDelta: (delta) => deltas.push(delta) });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.every((delta) => delta.type === 'text')).toBe(true);
    expect(deltas.map((delta) => (delta.type === 'text' ? delta.text : '')).join('')).toBe(result.text);
  });

  test('tool call pieces carry the call index, its id and name first, and add up to its arguments', async () => {
    fake.script('m', {
      kind: 'answer',
      toolCalls: [
        { name: 'first', arguments: { a: 1 } },
        { name: 'second', arguments: { b: 'two' } },
      ],
    });
    const deltas: OutputDelta[] = [];
    const result = await adapter
      .create(fake)
      .generate('m', request, { timeoutMs: 5_000, stream: true, onDelta: (delta) => deltas.push(delta) });
    for (const [index, call] of result.toolCalls.entries()) {
      const pieces = deltas.filter((delta) => delta.type === 'tool_call' && delta.index === index);
      expect(pieces[0]).toMatchObject({ id: call.id, name: call.name });
      const text = pieces.map((delta) => (delta.type === 'tool_call' ? delta.arguments : '')).join('');
      expect(JSON.parse(text)).toEqual(JSON.parse(call.arguments));
    }
  });

  test('a refusal hands nothing on', async () => {
    fake.script('m', { kind: 'refusal', text: 'I will not do that' });
    const deltas: OutputDelta[] = [];
    await expect(
      adapter
        .create(fake)
        .generate('m', request, { timeoutMs: 5_000, stream: true, onDelta: (delta) => deltas.push(delta) }),
    ).rejects.toMatchObject({ failureClass: 'refused' });
    expect(deltas).toEqual([]);
  });
});
