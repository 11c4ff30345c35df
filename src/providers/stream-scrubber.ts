// Scrubs the configured keys from an answer's streamed pieces as they pass, holding back only what may start a key. Pure.
import { REDACTED, type SecretScrubber } from './secret-scrubber';
import type { OutputDelta, ProviderKind } from './types';

/**
 * One key's replacement over a text that arrives in pieces: the same leftmost, non-overlapping replacement as
 * `split(key).join(REDACTED)` over the whole text, emitting each character as soon as it can no longer be part
 * of the key. What it holds is the text's end that is still the start of the key: shorter than the key.
 */
class KeyReplacement {
  private held = '';

  constructor(private readonly secret: string) {}

  /** The next piece in; out, what of the text so far is settled and not yet emitted, the key replaced. */
  push(piece: string): string {
    const text = this.held + piece;
    let settled = '';
    let from = 0;
    for (let found = text.indexOf(this.secret, from); found !== -1; found = text.indexOf(this.secret, from)) {
      settled += text.slice(from, found) + REDACTED;
      from = found + this.secret.length;
    }
    // No whole key after `from`: the first position whose rest still starts the key is where holding begins.
    let hold = Math.max(from, text.length - (this.secret.length - 1));
    while (hold < text.length && !this.secret.startsWith(text.slice(hold))) hold += 1;
    this.held = text.slice(hold);
    return settled + text.slice(from, hold);
  }

  /** The text ended: what was held is not a key after all. */
  end(): string {
    const held = this.held;
    this.held = '';
    return held;
  }
}

/**
 * A text arriving in pieces, every key replaced the way {@link SecretScrubber.text} replaces it over the whole:
 * one replacement per key, longest key first, each taking the previous one's output. So the pieces it emits
 * join to exactly `scrubber.text(all the pieces joined)`, however the pieces were cut. It holds back at most
 * (longest key − 1) characters per key, and only while the text's end could still be the start of one.
 */
export class TextStreamScrubber {
  private readonly replacements: KeyReplacement[];

  constructor(scrubber: SecretScrubber) {
    this.replacements = scrubber.secretsInOrder.map((secret) => new KeyReplacement(secret));
  }

  /** The next piece in; out, what can no longer be part of a key (possibly nothing). */
  push(piece: string): string {
    let text = piece;
    for (const replacement of this.replacements) text = replacement.push(text);
    return text;
  }

  /** The text ended: everything still held, scrubbed. The scrubber starts afresh after it. */
  end(): string {
    let text = '';
    for (const replacement of this.replacements) text = replacement.push(text) + replacement.end();
    return text;
  }
}

/** Which run of pieces a delta continues: the text, one tool call's arguments, or one reasoning part's text. */
type Channel =
  | { readonly type: 'text' }
  | { readonly type: 'tool_call'; readonly index: number }
  | { readonly type: 'reasoning'; readonly index: number; readonly origin?: ProviderKind };

/** The run a piece belongs to; a reasoning run remembers its origin, for the held end it may emit last. */
function channelOf(delta: OutputDelta): Channel {
  switch (delta.type) {
    case 'text':
      return { type: 'text' };
    case 'tool_call':
      return { type: 'tool_call', index: delta.index };
    case 'reasoning':
      return {
        type: 'reasoning',
        index: delta.index,
        ...(delta.origin !== undefined ? { origin: delta.origin } : {}),
      };
    default:
      return delta satisfies never;
  }
}

function sameChannel(channel: Channel | undefined, delta: OutputDelta): boolean {
  if (channel === undefined || channel.type !== delta.type) return false;
  return channel.type === 'text' || delta.type === 'text' || channel.index === delta.index;
}

/**
 * An answer's stream of pieces with the configured keys scrubbed, as the final answer is: the text, each tool
 * call's arguments and each reasoning part's text are scrubbed as one text each (a key cut across pieces is
 * still caught); ids, names, signatures and redacted data come whole and are scrubbed whole.
 *
 * Only the run of pieces in progress holds anything back: when pieces of another run begin (another tool call,
 * the text after the reasoning), the previous run's held end goes out first. The pieces so keep the order the
 * provider sent them in, which is what lets a surface render each run as one block (an Anthropic content block);
 * both providers send each block's pieces together. (The price: a key cut across two separate runs of the text,
 * with a tool call between them, is not caught in the stream; the answer then does not continue it, and the
 * gateway ends the stream with an error.) A reasoning part's signature or redacted data closes the
 * part, so its held text goes out with it, before it; its id (an OpenAI Responses item's) goes out whole.
 */
export class StreamScrubber {
  private channel: Channel | undefined;
  private readonly text: TextStreamScrubber;

  /** @param emit receives the scrubbed pieces, in order. */
  constructor(
    private readonly scrubber: SecretScrubber,
    private readonly emit: (delta: OutputDelta) => void,
  ) {
    this.text = new TextStreamScrubber(scrubber);
  }

  /** The provider's next piece. */
  push(delta: OutputDelta): void {
    if (!sameChannel(this.channel, delta)) {
      this.flush();
      this.channel = channelOf(delta);
    }
    switch (delta.type) {
      case 'text': {
        const text = this.text.push(delta.text);
        if (text !== '') this.emit({ type: 'text', text });
        return;
      }
      case 'tool_call': {
        const settled = this.text.push(delta.arguments);
        // A call's first piece (its id and name) goes out even when all of its arguments are held: it opens
        // the call, and later pieces of the call must not come before it.
        if (delta.id === undefined && delta.name === undefined && settled === '') return;
        this.emit({
          type: 'tool_call',
          index: delta.index,
          ...(delta.id !== undefined ? { id: this.scrubber.text(delta.id) } : {}),
          ...(delta.name !== undefined ? { name: this.scrubber.text(delta.name) } : {}),
          arguments: settled,
        });
        return;
      }
      case 'reasoning': {
        const closes = delta.signature !== undefined || delta.redactedData !== undefined;
        const text = this.text.push(delta.text) + (closes ? this.text.end() : '');
        // A part's id goes out even when its text is held, as a tool call's id does: it opens the part.
        if (!closes && text === '' && delta.id === undefined) return;
        this.emit({
          type: 'reasoning',
          index: delta.index,
          ...(delta.origin !== undefined ? { origin: delta.origin } : {}),
          text,
          ...(delta.id !== undefined ? { id: this.scrubber.text(delta.id) } : {}),
          ...(delta.signature !== undefined ? { signature: this.scrubber.text(delta.signature) } : {}),
          ...(delta.redactedData !== undefined
            ? { redactedData: this.scrubber.text(delta.redactedData) }
            : {}),
        });
        return;
      }
      default: {
        const unknown: never = delta;
        throw new Error(`unknown output delta ${(unknown as { type: string }).type}`);
      }
    }
  }

  /** Emits what the run in progress still holds (call it when the answer is complete). */
  flush(): void {
    const channel = this.channel;
    if (channel === undefined) return;
    const rest = this.text.end();
    if (rest === '') return;
    switch (channel.type) {
      case 'text':
        return this.emit({ type: 'text', text: rest });
      case 'tool_call':
        return this.emit({ type: 'tool_call', index: channel.index, arguments: rest });
      case 'reasoning':
        return this.emit({
          type: 'reasoning',
          index: channel.index,
          ...(channel.origin !== undefined ? { origin: channel.origin } : {}),
          text: rest,
        });
      default: {
        const unknown: never = channel;
        throw new Error(`unknown output channel ${(unknown as { type: string }).type}`);
      }
    }
  }
}
