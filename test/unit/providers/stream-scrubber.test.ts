// Keys scrubbed from streamed pieces: whatever the cut, the pieces join to exactly the scrubbed whole, in order.
import fc from 'fast-check';
import { SecretScrubber } from '../../../src/providers/secret-scrubber';
import { StreamScrubber, TextStreamScrubber } from '../../../src/providers/stream-scrubber';
import type { OutputDelta } from '../../../src/providers/types';
import { fuzzParameters } from '../fuzz/fuzz-settings';

const KEY = 'sk-test-0123456789abcdef';

/** Runs pieces through a stream scrubber; returns what it emitted, one entry per push (and one for flush). */
function scrubPieces(scrubber: SecretScrubber, pieces: readonly string[]) {
  const stream = new TextStreamScrubber(scrubber);
  const emitted = pieces.map((piece) => stream.push(piece));
  emitted.push(stream.end());
  return emitted;
}

/** Every way to cut `text` into `count` pieces (empty pieces included). */
function* cuts(text: string, count: number): Generator<string[]> {
  if (count === 1) {
    yield [text];
    return;
  }
  for (let at = 0; at <= text.length; at += 1) {
    for (const rest of cuts(text.slice(at), count - 1)) yield [text.slice(0, at), ...rest];
  }
}

/** `text` cut at the given points (taken modulo its length + 1; empty pieces included). */
function cutAt(text: string, points: readonly number[]): string[] {
  const at = points.map((point) => point % (text.length + 1)).sort((left, right) => left - right);
  return [0, ...at].map((start, index) => text.slice(start, [...at, text.length][index]));
}

/**
 * The properties every stream must have: the pieces join to the scrubbed whole; at every point what went out
 * is the start of it and no key; what is held back is shorter than the key (one key configured).
 */
function expectScrubbedStream(scrubber: SecretScrubber, pieces: readonly string[], longestKey: number) {
  const emitted = scrubPieces(scrubber, pieces);
  const whole = scrubber.text(pieces.join(''));
  expect(emitted.join('')).toBe(whole);
  let sent = '';
  let received = '';
  for (const [index, piece] of pieces.entries()) {
    sent += emitted[index];
    received += piece;
    expect(whole.startsWith(sent)).toBe(true);
    expect(sent).not.toContain(KEY);
    // Only what may still be the start of a key is held: the scrubbed text so far, less what went out.
    expect(scrubber.text(received).length - sent.length).toBeLessThanOrEqual(longestKey - 1);
  }
}

test('a key cut at every position across two pieces comes out replaced, as over the whole text', () => {
  const scrubber = new SecretScrubber([KEY]);
  const text = `your key is ${KEY}, keep it safe`;
  for (const pieces of cuts(text, 2)) expectScrubbedStream(scrubber, pieces, KEY.length);
  expect(scrubPieces(scrubber, [text.slice(0, 20), text.slice(20)]).join('')).toBe(
    'your key is [redacted], keep it safe',
  );
});

test('a key cut at every two positions across three pieces comes out replaced, as over the whole text', () => {
  const scrubber = new SecretScrubber([KEY]);
  const text = `a${KEY}b${KEY}`;
  for (const pieces of cuts(text, 3)) expectScrubbedStream(scrubber, pieces, KEY.length);
});

test('text that only starts like a key is held back until it is not one, then goes out unchanged', () => {
  const scrubber = new SecretScrubber([KEY]);
  const stream = new TextStreamScrubber(scrubber);
  expect(stream.push('ask for sk-test')).toBe('ask for ');
  expect(stream.push('-0123 instead')).toBe('sk-test-0123 instead');
  expect(stream.push(' s')).toBe(' ');
  expect(stream.end()).toBe('s');
  // After the end it starts afresh.
  expect(stream.push('no key')).toBe('no key');
});

test('two overlapping keys: the longer one wins where both could match, as over the whole text', () => {
  // The longer key starts inside the shorter one: which is replaced depends on characters not yet seen.
  const short = '0123456789';
  const long = '123456789abcde';
  const scrubber = new SecretScrubber([short, long]);
  for (const text of [`x0123456789abcdey`, `x0123456789abcdy`, `${short}${long}${short}`]) {
    for (const pieces of cuts(text, 2)) {
      expect(scrubPieces(scrubber, pieces).join('')).toBe(scrubber.text(text));
    }
    for (const pieces of cuts(text, 3)) {
      expect(scrubPieces(scrubber, pieces).join('')).toBe(scrubber.text(text));
    }
  }
  expect(scrubber.text('x0123456789abcdey')).toBe('x0[redacted]y');
  expect(scrubber.text('x0123456789abcdy')).toBe('x[redacted]abcdy');
  // One key inside another.
  const nested = new SecretScrubber(['abcdefgh', 'abcdefgh-longer']);
  const text = 'x abcdefgh-longer y abcdefgh z abcdefghabcdefgh-long';
  for (const pieces of cuts(text, 2)) expect(scrubPieces(nested, pieces).join('')).toBe(nested.text(text));
});

/** Runs deltas through a stream scrubber, then flushes it; returns what it emitted. */
function scrubDeltas(scrubber: SecretScrubber, deltas: readonly OutputDelta[]): OutputDelta[] {
  const emitted: OutputDelta[] = [];
  const stream = new StreamScrubber(scrubber, (delta) => emitted.push(delta));
  for (const delta of deltas) stream.push(delta);
  stream.flush();
  return emitted;
}

test("a key in a tool call's arguments: the call's first piece still goes out first, with its id and name", () => {
  const scrubber = new SecretScrubber([KEY]);
  const argumentsText = `{"token":"${KEY}"}`;
  for (let at = 0; at <= argumentsText.length; at += 1) {
    const emitted = scrubDeltas(scrubber, [
      { type: 'text', text: 'calling' },
      { type: 'tool_call', index: 0, id: 'call_1', name: 'lookup', arguments: argumentsText.slice(0, at) },
      { type: 'tool_call', index: 0, arguments: argumentsText.slice(at) },
    ]);
    expect(emitted[0]).toEqual({ type: 'text', text: 'calling' });
    expect(emitted[1]).toMatchObject({ type: 'tool_call', index: 0, id: 'call_1', name: 'lookup' });
    const calls = emitted.filter((delta) => delta.type === 'tool_call');
    expect(calls.slice(1).every((delta) => delta.id === undefined && delta.name === undefined)).toBe(true);
    expect(calls.map((delta) => delta.arguments).join('')).toBe('{"token":"[redacted]"}');
    expect(JSON.stringify(emitted)).not.toContain('sk-test-0123');
  }
  // A key in an id or a name is scrubbed whole, as the answer's is.
  const named = scrubDeltas(scrubber, [
    { type: 'tool_call', index: 0, id: KEY, name: `x${KEY}`, arguments: '' },
  ]);
  expect(named).toEqual([
    { type: 'tool_call', index: 0, id: '[redacted]', name: 'x[redacted]', arguments: '' },
  ]);
});

test("a key in reasoning text: the part's text joins to the scrubbed text, before its signature", () => {
  const scrubber = new SecretScrubber([KEY]);
  const thinking = `the user's key is ${KEY}`;
  for (let at = 0; at <= thinking.length; at += 1) {
    const emitted = scrubDeltas(scrubber, [
      { type: 'reasoning', index: 0, text: thinking.slice(0, at) },
      { type: 'reasoning', index: 0, text: thinking.slice(at) },
      { type: 'reasoning', index: 0, text: '', signature: `sig-${KEY}` },
      { type: 'reasoning', index: 1, text: '', redactedData: 'opaque' },
      { type: 'text', text: 'answer' },
    ]);
    const reasoning = emitted.filter((delta) => delta.type === 'reasoning');
    const first = reasoning.filter((delta) => delta.index === 0);
    expect(first.map((delta) => delta.text).join('')).toBe("the user's key is [redacted]");
    // The signature closes the part: nothing of the part comes after it.
    expect(first[first.length - 1]).toMatchObject({ signature: 'sig-[redacted]' });
    expect(reasoning.filter((delta) => delta.index === 1)).toEqual([
      { type: 'reasoning', index: 1, text: '', redactedData: 'opaque' },
    ]);
    expect(emitted[emitted.length - 1]).toEqual({ type: 'text', text: 'answer' });
    expect(JSON.stringify(emitted)).not.toContain('sk-test-0123');
  }
});

test("a reasoning part's id (an OpenAI Responses item's) opens the part, whole, even when its text is held", () => {
  const scrubber = new SecretScrubber([KEY]);
  const emitted = scrubDeltas(scrubber, [
    { type: 'reasoning', index: 0, origin: 'openai-responses', text: '', id: 'rs_1' },
    { type: 'reasoning', index: 0, origin: 'openai-responses', text: 'about sk-' },
    { type: 'reasoning', index: 0, origin: 'openai-responses', text: '', signature: 'enc' },
    { type: 'reasoning', index: 1, origin: 'openai-responses', text: 'sk-', id: `rs_${KEY}` },
  ]);
  expect(emitted).toEqual([
    { type: 'reasoning', index: 0, origin: 'openai-responses', text: '', id: 'rs_1' },
    { type: 'reasoning', index: 0, origin: 'openai-responses', text: 'about ' },
    { type: 'reasoning', index: 0, origin: 'openai-responses', text: 'sk-', signature: 'enc' },
    { type: 'reasoning', index: 1, origin: 'openai-responses', text: '', id: 'rs_[redacted]' },
    { type: 'reasoning', index: 1, origin: 'openai-responses', text: 'sk-' },
  ]);
});

test("a run's held end goes out before the next run starts, so the pieces keep the provider's order", () => {
  const scrubber = new SecretScrubber([KEY]);
  const emitted = scrubDeltas(scrubber, [
    { type: 'reasoning', index: 0, text: 'thinking about s' },
    { type: 'text', text: 'Let me look up the results' },
    { type: 'tool_call', index: 0, id: 'call_1', name: 'lookup', arguments: '{"q":"s' },
    { type: 'tool_call', index: 1, id: 'call_2', name: 'lookup', arguments: '{"q":"sk-' },
  ]);
  expect(emitted).toEqual([
    { type: 'reasoning', index: 0, text: 'thinking about ' },
    { type: 'reasoning', index: 0, text: 's' },
    { type: 'text', text: 'Let me look up the result' },
    { type: 'text', text: 's' },
    { type: 'tool_call', index: 0, id: 'call_1', name: 'lookup', arguments: '{"q":"' },
    { type: 'tool_call', index: 0, arguments: 's' },
    { type: 'tool_call', index: 1, id: 'call_2', name: 'lookup', arguments: '{"q":"' },
    { type: 'tool_call', index: 1, arguments: 'sk-' },
  ]);
});

test('property: for any keys, text and cut, the emitted pieces join to the scrubbed text', () => {
  // A small alphabet so keys overlap the text, each other and themselves often; some keys hold pieces of the
  // replacement, so one key's replacement can make or break a match of the next.
  const character = fc.constantFrom('a', 'b', 'c', '[', ']', '[red', 'acted]');
  const key = fc
    .array(fc.constantFrom('a', 'b', 'c', 'ab', '[red', 'acted]'), { minLength: 3, maxLength: 10 })
    .map((parts) => parts.join(''))
    .filter((joined) => joined.length >= 8 && joined.length <= 16);
  fc.assert(
    fc.property(
      fc.array(key, { minLength: 1, maxLength: 3 }),
      fc.array(fc.oneof(fc.string({ unit: character, maxLength: 6 }), key), { maxLength: 12 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      (keys, words, cutPoints) => {
        const scrubber = new SecretScrubber(keys);
        const text = words.join('');
        const emitted = scrubPieces(scrubber, cutAt(text, cutPoints));
        expect(emitted.join('')).toBe(scrubber.text(text));
        let sent = '';
        for (const piece of emitted) {
          sent += piece;
          expect(scrubber.text(text).startsWith(sent)).toBe(true);
        }
      },
    ),
    fuzzParameters(2_000),
  );
});

test('property: tool call arguments and reasoning text join to the scrubbed whole too', () => {
  const scrubber = new SecretScrubber([KEY]);
  const words = fc
    .array(fc.oneof(fc.constantFrom(KEY, 'sk-', 'sk-test', ' ', 's'), fc.string({ maxLength: 5 })), {
      maxLength: 8,
    })
    .map((parts) => parts.join(''));
  const cutPoints = fc.array(fc.nat(), { maxLength: 6 });
  fc.assert(
    fc.property(
      words,
      cutPoints,
      words,
      cutPoints,
      (thinking, thinkingCuts, argumentsText, argumentsCuts) => {
        const reasoningPieces = cutAt(thinking, thinkingCuts);
        const argumentPieces = cutAt(argumentsText, argumentsCuts);
        const emitted = scrubDeltas(scrubber, [
          ...reasoningPieces.map((piece) => ({ type: 'reasoning' as const, index: 0, text: piece })),
          ...argumentPieces.map((piece, index) => ({
            type: 'tool_call' as const,
            index: 0,
            ...(index === 0 ? { id: 'call_1', name: 'lookup' } : {}),
            arguments: piece,
          })),
        ]);
        const reasoning = emitted.flatMap((delta) => (delta.type === 'reasoning' ? [delta.text] : []));
        const calls = emitted.flatMap((delta) => (delta.type === 'tool_call' ? [delta] : []));
        expect(reasoning.join('')).toBe(scrubber.text(thinking));
        expect(calls.map((delta) => delta.arguments).join('')).toBe(scrubber.text(argumentsText));
        expect(calls[0]).toMatchObject({ id: 'call_1', name: 'lookup' });
        // Every reasoning piece comes before the first piece of the call.
        const firstCall = emitted.findIndex((delta) => delta.type === 'tool_call');
        expect(emitted.slice(firstCall).every((delta) => delta.type === 'tool_call')).toBe(true);
      },
    ),
    fuzzParameters(1_000),
  );
});
