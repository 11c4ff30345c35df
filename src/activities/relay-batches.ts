// Cuts a streamed attempt's pending pieces into relay pushes that each stay well under the relay's body limit. Pure; worker side.
import type { OutputDelta } from '../providers/types';

/**
 * The most bytes of pieces one push carries. The gateway's relay takes bodies of up to 1 MiB, and a push gathers
 * whatever arrived while the previous one was in flight: a fast provider writing a large tool input could gather
 * more than that, which the relay would refuse.
 */
export const MAX_PUSH_BYTES = 256 * 1024;

/** Characters of text one piece carries at most: 6 bytes each as JSON escapes at worst, so a piece fits a push. */
const MAX_PIECE_CHARACTERS = Math.floor(MAX_PUSH_BYTES / 6);

/** Byte length of a piece as its push carries it. */
function pieceBytes(delta: OutputDelta): number {
  return Buffer.byteLength(JSON.stringify(delta));
}

/**
 * `delta` as pieces of at most {@link MAX_PIECE_CHARACTERS} characters of text, which join back to it: a tool
 * call's id and name stay on its first piece, a reasoning part's signature and redacted data on its last.
 */
export function splitPiece(delta: OutputDelta): OutputDelta[] {
  const text = delta.type === 'tool_call' ? delta.arguments : delta.text;
  if (text.length <= MAX_PIECE_CHARACTERS) return [delta];
  const slices: string[] = [];
  let start = 0;
  while (start < text.length) {
    // A surrogate pair is never cut in two: a lone half would not survive JSON.
    let end = Math.min(start + MAX_PIECE_CHARACTERS, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    slices.push(text.slice(start, end));
    start = end;
  }
  switch (delta.type) {
    case 'text':
      return slices.map((slice) => ({ type: 'text', text: slice }));
    case 'tool_call':
      return slices.map((slice, index) =>
        index === 0
          ? { ...delta, arguments: slice }
          : { type: 'tool_call', index: delta.index, arguments: slice },
      );
    case 'reasoning': {
      const { signature: _signature, redactedData: _redactedData, ...plain } = delta;
      return slices.map((slice, index) =>
        index === slices.length - 1 ? { ...delta, text: slice } : { ...plain, text: slice },
      );
    }
    default:
      return delta satisfies never;
  }
}

/** The next push from `pending` (taken off it): pieces in order, at least one, at most {@link MAX_PUSH_BYTES}. */
export function takePush(pending: OutputDelta[]): OutputDelta[] {
  const push: OutputDelta[] = [];
  let bytes = 0;
  while (pending.length > 0) {
    const pieces = splitPiece(pending[0]!);
    if (pieces.length > 1) pending.splice(0, 1, ...pieces);
    const size = pieceBytes(pending[0]!);
    if (push.length > 0 && bytes + size > MAX_PUSH_BYTES) break;
    push.push(pending.shift()!);
    bytes += size;
  }
  return push;
}
