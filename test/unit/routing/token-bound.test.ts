// The prompt-token bound is an upper bound for any text: compared with a real o200k tokenizer on hostile text,
// normalized text, rendered tool schemas, and random strings; and its table matches this runtime's Unicode data.
import fc from 'fast-check';
import type { GenerationRequest, Tool } from '../../../src/config/request';
import {
  estimateInputTokens,
  jsonBoundBytes,
  textBoundBytes,
  UnserializableRequestError,
} from '../../../src/routing/estimate-tokens';
import { NORMALIZATION_TABLE_UNICODE_VERSION } from '../../../src/routing/normalization-expansion';
import { codePointWorstBytes } from '../../support/normalization-worst-case';

// js-tiktoken declares its types for ESM only; its CommonJS build is what Jest loads, typed here by what is used.
interface Tokenizer {
  encode(text: string, allowedSpecial: string[], disallowedSpecial: string[]): number[];
}
const { Tiktoken } = require('js-tiktoken/lite') as { Tiktoken: new (ranks: unknown) => Tokenizer };
// The CommonJS ranks module is the ranks object itself.
const o200k: unknown = require('js-tiktoken/ranks/o200k_base');
const tokenizer = new Tiktoken(o200k);
/** o200k tokens of `text` as the API tokenizes it: special-token text is ordinary text there. */
const counted = new Map<string, number>();
function tokens(text: string): number {
  let count = counted.get(text);
  if (count === undefined) {
    count = tokenizer.encode(text, [], []).length;
    counted.set(text, count);
  }
  return count;
}
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** OpenAI's documented additions: 3 per message, 3 to prime the reply (the cookbook's count). */
function openAIPromptTokens(request: GenerationRequest): number {
  const texts = [
    ...(request.system !== undefined ? [request.system as string] : []),
    ...request.messages.map((m) => m.content as string),
  ];
  return 3 + texts.reduce((sum, text) => sum + 3 + tokens(text), 0);
}

const ask = (content: string, system?: string): GenerationRequest => ({
  messages: [{ role: 'user', content }],
  ...(system !== undefined ? { system } : {}),
  maxOutputTokens: 16,
});

/** Texts that break character-based estimates: few characters, many tokens. */
const HOSTILE: Record<string, string> = {
  // The case: CJK prose, where o200k spends about one token per character or more.
  cjk: '東京都の新しい図書館は、古い建物を改装して作られました。'.repeat(60) + '鑑賞龘齉靐'.repeat(100),
  korean: '한국어 문장은 토큰을 많이 씁니다. 띄어쓰기도 있습니다. '.repeat(80),
  emoji: '👩🏽‍💻🧑‍🤝‍🧑🏳️‍🌈🇺🇳🫶🏿 '.repeat(60),
  'combining marks': 'Z͑ͫ̓ͪ̂ͫ̽͏̴̙̤̞͉͚̯̞̠͍A̴̵̜̰͔ͫ͗͢L̠ͨͧͩ͘G̴̻͈͍͔̹̑͗̎̅͛́Ǫ̵̹̻̝̳͂̌̌͘'.repeat(40),
  // Runs of a few hundred: js-tiktoken's merge loop is quadratic in the length of one piece.
  'long whitespace': (
    ' '.repeat(400) +
    'x' +
    '\t'.repeat(300) +
    '\n'.repeat(300) +
    ' \n\t\r'.repeat(80)
  ).repeat(6),
  'alternating whitespace': (' \u00a0\u2003\u3000'.repeat(60) + 'x').repeat(10),
  'single letters': 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(100),
  digits: '0123456789'.repeat(500),
  'random ascii punctuation': ('!@#$%^&*()_+{}|:"<>?~`-=[]\\;\',./'.repeat(8) + ' ').repeat(10),
  'special token text': '<|endoftext|><|im_start|>system<|im_sep|>'.repeat(100),
  'nfkc expanding ligatures': '\ufdfa\ufdfb\u3300\u33ff\u2474\ufb03'.repeat(200),
  'arabic presentation forms': 'ﻼﻷﺍﺑﺗﺛ ﷲﷴ'.repeat(200),
  'hangul jamo': '\u1100\u1161\u11a8\u1112\u1175'.repeat(300),
  'lone surrogates': '\ud800x\udfff\udbff'.repeat(300),
  astral: '𝕳𝖊𝖑𝖑𝖔 𐍈𐌰 𓀀𓀁 🀄🃏'.repeat(200),
  'mixed scripts': 'Ελληνικά Русский עברית العربية हिन्दी ไทย ქართული '.repeat(60),
};

test.each(Object.entries(HOSTILE))('the bound holds for %s, normalized or not', (_name, text) => {
  const shortfalls: string[] = [];
  for (const request of [ask(text), ask('hello', text), ask(text.slice(0, 100), text.slice(100))]) {
    const bound = estimateInputTokens(request);
    for (const form of ['none', 'NFC', 'NFKC'] as const) {
      const seen = (value: string) => (form === 'none' ? value : value.normalize(form));
      const real = openAIPromptTokens({
        ...request,
        ...(request.system !== undefined ? { system: seen(request.system as string) } : {}),
        messages: request.messages.map(
          (message) => ({ ...message, content: seen(message.content as string) }) as typeof message,
        ),
      });
      if (bound < real) shortfalls.push(`${form}: bound ${bound} < real ${real}`);
    }
  }
  expect(shortfalls).toEqual([]);
  // The text part alone bounds the bytes of every form a tokenizer may see.
  const bytes = textBoundBytes(text);
  expect(bytes).toBeGreaterThanOrEqual(utf8(text));
  expect(bytes).toBeGreaterThanOrEqual(utf8(text.normalize('NFC')));
  expect(bytes).toBeGreaterThanOrEqual(utf8(text.normalize('NFKC')));
});

test('the issue case: a CJK prompt the old estimate put at about half its real count is bounded', () => {
  const prompt = '私たちは明日の会議で新しい予算案について話し合います。'.repeat(63);
  const request = ask(prompt);
  const real = openAIPromptTokens(request);
  // What the characters ÷ 3 estimate said: far below the real count.
  expect(Math.ceil(prompt.length / 3) + 16).toBeLessThan(real);
  expect(estimateInputTokens(request)).toBeGreaterThanOrEqual(real);
});

test('random strings of any code points, lone surrogates included, never exceed the bound', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { minLength: 1, maxLength: 4 }),
      (texts) => {
        const request: GenerationRequest = {
          messages: texts.map((content) => ({ role: 'user', content: content || 'x' })),
          maxOutputTokens: 16,
        };
        const bound = estimateInputTokens(request);
        const all = request.messages.map((m) => m.content).join('');
        return (
          bound >= openAIPromptTokens(request) &&
          textBoundBytes(all) >= utf8(all.normalize('NFKC')) &&
          textBoundBytes(all) >= utf8(all.normalize('NFC'))
        );
      },
    ),
    { numRuns: 400, seed: 14 },
  );
});

test('strings built from decomposing and combining characters stay bounded after normalization', () => {
  // Precomposed letters, combining marks of several classes, jamo, compatibility characters: normalization
  // reorders, composes and decomposes across neighbours, which a per-character count must still cover.
  const pieces = [
    'é',
    'ẹ',
    'ǖ',
    '\u0301',
    '\u0323',
    '\u0308',
    '\u0344',
    '\u1e9b',
    'ᄀ',
    'ᅡ',
    'ᆨ',
    '가',
    '각',
    'ﷺ',
    '㍿',
    'ﬃ',
    '½',
    'Ω',
    'Å',
    'ｶ',
    'ﾞ',
    'ゔ',
    '\u3099',
    '\u0f73',
    '\u0f81',
    '𝑨',
    '\u{1d15e}',
  ];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 80 }), (parts) => {
      const text = parts.join('');
      const bytes = textBoundBytes(text);
      return (
        bytes >= utf8(text.normalize('NFC')) &&
        bytes >= utf8(text.normalize('NFKC')) &&
        estimateInputTokens(ask(text)) >= openAIPromptTokens(ask(text.normalize('NFKC')))
      );
    }),
    { numRuns: 2_000, seed: 14 },
  );
});

/** A tool as OpenAI is understood to render it: TypeScript-like, with comments and 2-space indentation. */
function renderTypeScript(schema: Record<string, unknown>, depth: number): string {
  const indent = '  '.repeat(depth);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.type === 'array' && typeof schema.items === 'object') {
    return `${renderTypeScript(schema.items as Record<string, unknown>, depth)}[]`;
  }
  if (schema.type !== 'object') return String(schema.type ?? 'any');
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  const lines = Object.entries(properties).map(([name, property]) => {
    const comment =
      typeof property.description === 'string'
        ? property.description
            .split('\n')
            .map((line) => `${indent}  // ${line}\n`)
            .join('')
        : '';
    const optional = required.has(name) ? '' : '?';
    return `${comment}${indent}  ${name}${optional}: ${renderTypeScript(property, depth + 1)},\n`;
  });
  return `{\n${lines.join('')}${indent}}`;
}

function renderTool(tool: Tool): string {
  const description = tool.description ? `// ${tool.description.split('\n').join('\n// ')}\n` : '';
  return `namespace functions {\n\n${description}type ${tool.name} = (_: ${renderTypeScript(tool.parameters, 0)}) => any;\n\n} // namespace functions`;
}

/** JSON with every non-ASCII character escaped, as Python's json.dumps writes it by default. */
function asciiJson(value: unknown, indent: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\u0080-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function nested(depth: number): Record<string, unknown> {
  if (depth === 0) {
    return {
      type: 'string',
      description: 'Ein Feld\nmit Zeilen\n\n\nund 日本語 ✓',
      enum: Array.from({ length: 30 }, (_, index) => `v${index}`),
    };
  }
  return {
    type: 'object',
    description: `level ${depth}\nsecond line`,
    properties: {
      a: nested(depth - 1),
      b: { type: 'number' },
      c: { type: 'array', items: nested(depth - 1) },
    },
    required: ['a'],
  };
}

test('tool definitions are bounded however the provider renders them', () => {
  const tools: Tool[] = [
    { name: 'lookup', description: 'Looks up\na record', parameters: nested(5) },
    { name: 'flat', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
    {
      name: 'enums',
      description: '列挙型の多いツール',
      parameters: {
        type: 'object',
        properties: { color: { type: 'string', enum: Array.from({ length: 400 }, (_, i) => `c${i}`) } },
      },
    },
  ];
  const request: GenerationRequest = { ...ask('call a tool'), tools };
  const toolPart = estimateInputTokens(request) - estimateInputTokens(ask('call a tool'));
  const renderings = {
    compact: tools.map((tool) => JSON.stringify(tool)).join('\n'),
    indented: tools.map((tool) => JSON.stringify(tool, null, 4)).join('\n'),
    'ascii-escaped': tools.map((tool) => asciiJson(tool, 4)).join('\n'),
    typescript: tools.map(renderTool).join('\n'),
  };
  const shortfalls: string[] = [];
  for (const [name, text] of Object.entries(renderings)) {
    // The text's own tokens and bytes, plus the cookbook's per-function additions (7 to open, 12 to close).
    const real = Math.max(tokens(text), utf8(text)) + 19 * tools.length;
    if (toolPart < real) shortfalls.push(`${name}: bound ${toolPart} < ${real}`);
  }
  expect(shortfalls).toEqual([]);
});

test('a JSON schema for the answer is bounded like a tool', () => {
  const request: GenerationRequest = { ...ask('answer as JSON'), jsonSchema: nested(4) };
  const schemaPart = estimateInputTokens(request) - estimateInputTokens(ask('answer as JSON'));
  expect(schemaPart).toBeGreaterThanOrEqual(utf8(asciiJson(nested(4), 4)));
  expect(schemaPart).toBeGreaterThanOrEqual(tokens(renderTypeScript(nested(4), 0)));
});

test('deep nesting is walked without overflowing the stack; a cycle is refused', () => {
  const nest = (levels: number) => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < levels; level += 1) deep = { type: 'object', properties: { x: deep } };
    return deep;
  };
  expect(jsonBoundBytes(nest(2_000))).toBeGreaterThan(utf8(JSON.stringify(nest(2_000))));
  // Deeper than JSON.stringify itself can go.
  expect(jsonBoundBytes(nest(100_000))).toBeGreaterThan(0);
  const cyclic: Record<string, unknown> = { type: 'object' };
  cyclic.self = cyclic;
  expect(() => jsonBoundBytes(cyclic)).toThrow(UnserializableRequestError);
  // Shared (not cyclic) subtrees are counted each time, as JSON writes them.
  const shared = { type: 'string' };
  expect(jsonBoundBytes({ a: shared, b: shared })).toBe(
    jsonBoundBytes({ a: { type: 'string' }, b: { type: 'string' } }),
  );
});

test(`the expansion table covers every code point of this runtime's Unicode ${process.versions.unicode}`, () => {
  // A runtime with newer Unicode data may decompose characters the table does not know: regenerate it then
  // (npx tsx scripts/generate-normalization-table.ts).
  const missed: string[] = [];
  for (let codePoint = 0x80; codePoint <= 0x10ffff; codePoint += 1) {
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
    if (textBoundBytes(String.fromCodePoint(codePoint)) < codePointWorstBytes(codePoint)) {
      missed.push(codePoint.toString(16));
    }
  }
  expect({ table: NORMALIZATION_TABLE_UNICODE_VERSION, missed }).toEqual({
    table: NORMALIZATION_TABLE_UNICODE_VERSION,
    missed: [],
  });
});
