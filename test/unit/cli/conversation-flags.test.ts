// `call` and `plan` send whole conversations: --request (a file or stdin), --image attachments, --stop; each refusal names its flag.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GenerationRequestInput } from '../../../src/config/request';
import { ExitCode } from '../../../src/cli/exit-codes';
import { parseCommandArguments } from '../../../src/cli/parse-arguments';
import { readRequestContent } from '../../../src/cli/read-prompt';
import { renderAnswer, renderReasoningSummary } from '../../../src/cli/render-answer';
import {
  buildCallInput,
  CALL_FLAGS,
  CONVERSATION_FLAGS,
  readConversationFlags,
  readRequestFlags,
  REQUEST_FLAGS,
} from '../../../src/cli/request-flags';
import type { CallPlan } from '../../../src/routing/call-plan';
import { idlePipeStdin, pipedStdin, run, terminalStdin, TEST_CONFIG, writeTempFile } from './cli-test-io';

const NOWHERE = ['--address', '127.0.0.1:1'];
const configFile = writeTempFile('switchyard.config.json', TEST_CONFIG);
/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');

function writeBinary(name: string, bytes: Buffer): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'switchyard-cli-')), name);
  writeFileSync(file, bytes);
  return file;
}

/** A tool loop's second turn: the question, the model's tool call, the tool's result. */
const TOOL_TURN: GenerationRequestInput = {
  system: 'You answer questions about orders.',
  messages: [
    { role: 'user', content: 'Where is my order A-1001?' },
    {
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'call_1', name: 'look_up_order', arguments: '{"orderId":"A-1001"}' },
      ],
    },
    {
      role: 'tool',
      content: [{ type: 'tool_result', callId: 'call_1', content: '{"status":"shipped"}' }],
    },
  ],
  tools: [{ name: 'look_up_order', parameters: { type: 'object' } }],
  maxOutputTokens: 300,
};

/** The call input the flags and content sources describe, as `call` builds it. */
async function callInput(argv: readonly string[], stdin = terminalStdin) {
  const parsed = parseCommandArguments(
    argv,
    { ...REQUEST_FLAGS, ...CONVERSATION_FLAGS, ...CALL_FLAGS },
    { allowPositionals: true },
  );
  const flags = { ...readRequestFlags(parsed), ...readConversationFlags(parsed) };
  const content = await readRequestContent({
    positionals: parsed.positionals,
    stdin,
    readStdinWhenAbsent: true,
    images: flags.images,
    ...(flags.requestFile !== undefined ? { requestFile: flags.requestFile } : {}),
    ...(flags.system !== undefined ? { system: flags.system } : {}),
  });
  return buildCallInput(flags, content);
}

async function callRefusal(argv: readonly string[], stdin = terminalStdin) {
  const { code, out, err } = await run(['call', '--config', configFile, ...argv, ...NOWHERE], stdin);
  expect({ code, out }).toEqual({ code: ExitCode.usage, out: '' });
  return err;
}

test('--request sends the whole conversation as written; option flags given override its fields', async () => {
  const file = writeTempFile('turn.json', TOOL_TURN);
  expect((await callInput(['--request', file])).request).toEqual(TOOL_TURN);
  const overridden = await callInput(['--request', file, '--max-output-tokens', '64', '--stop', 'END']);
  expect(overridden.request).toEqual({ ...TOOL_TURN, maxOutputTokens: 64, stopSequences: ['END'] });
});

test('--request - reads the request from stdin', async () => {
  const input = await callInput(['--request', '-'], pipedStdin(JSON.stringify(TOOL_TURN)));
  expect(input.request).toEqual(TOOL_TURN);
});

test('plan --request plans the conversation: its tokens are counted, not a placeholder', async () => {
  const file = writeTempFile('turn.json', TOOL_TURN);
  const { code, out, err } = await run(
    ['plan', '--config', configFile, '--json', '--request', file],
    idlePipeStdin,
  );
  expect({ code, err }).toEqual({ code: 0, err: '' });
  const plan = JSON.parse(out) as CallPlan;
  expect(plan.maxOutputTokens).toBe(300);
  const placeholder = JSON.parse((await run(['plan', '--config', configFile, '--json'], idlePipeStdin)).out);
  expect(plan.estimatedInputTokens).toBeGreaterThan((placeholder as CallPlan).estimatedInputTokens);
});

test.each([
  { argv: ['a prompt'], named: 'a prompt argument' },
  { argv: ['--system', 'be brief'], named: '--system' },
  { argv: ['--file', '/tmp/question.md'], named: '--file' },
  { argv: ['--image', '/tmp/x.png'], named: '--image' },
  { argv: ['hi', '--system', 'be brief'], named: 'a prompt argument or --system' },
])('--request with $named exits 2 naming it', async ({ argv, named }) => {
  const file = writeTempFile('turn.json', TOOL_TURN);
  const err = await callRefusal(['--request', file, ...argv]);
  expect(err).toContain(`switchyard call: --request holds the whole conversation, so it takes no ${named}:`);
});

test.each([
  { content: '{"messages": [', says: 'is not valid JSON' },
  { content: '[]', says: 'must hold a JSON object' },
  { content: '{"request": {"messages": []}}', says: 'it looks like a whole call' },
])('a --request file that is not a request exits 2: $says', async ({ content, says }) => {
  const file = writeTempFile('bad.json', content);
  const err = await callRefusal(['--request', file]);
  expect(err).toContain(`switchyard call: --request ${file}`);
  expect(err).toContain(says);
});

test('a bad field of a --request file is named as the file’s field, and a flag’s as the flag’s', async () => {
  const badTool = {
    ...TOOL_TURN,
    messages: [
      ...TOOL_TURN.messages.slice(0, 2),
      { role: 'tool', content: [{ type: 'tool_result', content: 'no call id' }] },
    ],
  };
  const file = writeTempFile('turn.json', badTool);
  const err = await callRefusal(['--request', file]);
  expect(err).toContain(
    `switchyard call: invalid request in --request ${file} at messages.2.content.0.callId:`,
  );
  expect(err).not.toContain('(the prompt)');

  const fine = writeTempFile('turn.json', TOOL_TURN);
  const flagErr = await callRefusal(['--request', fine, '--temperature', '3']);
  expect(flagErr).toContain('invalid request at request.temperature (--temperature):');
});

test('--image attaches local images before the prompt, base64 with the media type of their extension', async () => {
  const png = writeBinary('photo.PNG', PNG);
  const gif = writeBinary('anim.gif', GIF);
  const input = await callInput(['What is in these?', '--image', png, '--image', gif]);
  expect(input.request.messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'image', data: PNG.toString('base64'), mediaType: 'image/png' },
        { type: 'image', data: GIF.toString('base64'), mediaType: 'image/gif' },
        { type: 'text', text: 'What is in these?' },
      ],
    },
  ]);
});

test.each([
  {
    name: 'photo.bmp',
    bytes: PNG,
    says: 'the media type is read from the extension, which must be .png, .jpg, .jpeg, .gif or .webp',
  },
  { name: 'renamed.jpg', bytes: PNG, says: 'the file is not a JPG image' },
])('--image $name exits 2: $says', async ({ name, bytes, says }) => {
  const file = writeBinary(name, bytes);
  const err = await callRefusal(['hi', '--image', file]);
  expect(err).toContain(`switchyard call: --image ${file}: ${says}`);
});

test('--image of a missing file exits 2 naming it', async () => {
  const err = await callRefusal(['hi', '--image', '/nonexistent/photo.png']);
  expect(err).toContain('--image cannot be read: /nonexistent/photo.png: ENOENT');
});

test('--stop repeats into stopSequences in order; other flags still may not repeat', async () => {
  const input = await callInput(['hi', '--stop', 'END', '--stop', '###']);
  expect(input.request.stopSequences).toEqual(['END', '###']);
  expect('stopSequences' in (await callInput(['hi'])).request).toBe(false);
  expect(await callRefusal(['hi', '--stop', ''])).toContain('--stop must not be empty');
  expect(await callRefusal(['hi', '--route', 'a', '--route', 'b'])).toContain(
    '--route is given more than once',
  );
  const tooMany = Array.from({ length: 17 }, (_, index) => ['--stop', `s${index}`]).flat();
  expect(await callRefusal(['hi', ...tooMany])).toContain('at request.stopSequences (--stop):');
});

test('the answer prints its text and each tool call with its id; reasoning as one summary line', () => {
  const answer = {
    text: 'Let me look.',
    toolCalls: [{ id: 'call_9', name: 'look_up_order', arguments: '{"orderId":"A-1"}' }],
    reasoning: [
      { type: 'reasoning' as const, text: 'The user wants', signature: 'sig', origin: 'anthropic' as const },
      { type: 'reasoning' as const, text: '', redactedData: 'opaque', origin: 'anthropic' as const },
    ],
  };
  expect(renderAnswer(answer)).toBe('Let me look.\n[tool call look_up_order call_9] {"orderId":"A-1"}\n');
  expect(renderReasoningSummary(answer)).toBe(
    'reasoning: 2 parts from anthropic (14 characters, 1 signed, 1 redacted); --json prints it',
  );
  expect(renderReasoningSummary({ text: 'hi', toolCalls: [] })).toBeUndefined();
  expect(renderAnswer({ text: 'done\n', toolCalls: [] })).toBe('done\n');
});

test('call and plan --help document the conversation flags', async () => {
  for (const command of ['call', 'plan']) {
    const { out } = await run([command, '--help']);
    for (const flag of ['--request <path|->', '--image <path>', '--stop <text>']) expect(out).toContain(flag);
  }
});
