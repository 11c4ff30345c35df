// The fake's Responses wire (POST /v1/responses), called with the real `openai` SDK: each request the real API
// refuses, refused with the real API's status, message, param and code.
import OpenAI, { APIError } from 'openai';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { startFakeProvider, type FakeProvider } from '../../src/fake-provider';
import { OPENAI_KEY } from './provider-fixtures';

const MODEL = 'gpt-responses-validation';
const TOOLS = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object' }, strict: false }];

let fake: FakeProvider;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeProvider();
  client = new OpenAI({ apiKey: OPENAI_KEY, baseURL: fake.openaiBaseURL, maxRetries: 0 });
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

/** The refusal's status and error object, as the SDK parsed them. */
async function refusal(
  body: Record<string, unknown>,
): Promise<{ status: number | undefined; error: Record<string, unknown> }> {
  try {
    await client.responses.create({
      model: MODEL,
      store: false,
      ...body,
    } as ResponseCreateParamsNonStreaming);
  } catch (error) {
    if (error instanceof APIError)
      return { status: error.status, error: error.error as Record<string, unknown> };
    throw error;
  }
  throw new Error('expected the request to be refused');
}

const user = (text: string) => ({ role: 'user', content: text });
const functionCall = (callId: string) => ({
  type: 'function_call',
  call_id: callId,
  name: 'lookup',
  arguments: '{}',
});
const functionOutput = (callId: string) => ({
  type: 'function_call_output',
  call_id: callId,
  output: 'Sunny',
});

describe('fake Responses wire: requests the real API refuses', () => {
  it.each([
    ['stop', ['x']],
    ['seed', 7],
    ['top_k', 5],
    ['messages', [user('hi')]],
    ['response_format', { type: 'json_object' }],
  ])('an unknown parameter: %s', async (field, value) => {
    const { status, error } = await refusal({ input: 'hi', [field]: value });
    expect(status).toBe(400);
    expect(error).toEqual({
      message: `Unknown parameter: '${field}'.`,
      type: 'invalid_request_error',
      param: field,
      code: 'unknown_parameter',
    });
  });

  it('a request without a model', async () => {
    const { error } = await refusal({ model: undefined, input: 'hi' });
    expect(error).toMatchObject({ param: 'model', code: 'missing_required_parameter' });
  });

  it.each([
    ['max_output_tokens', 15, 'integer_below_min_value'],
    ['temperature', 2.5, 'decimal_above_max_value'],
    ['top_p', -0.1, 'decimal_below_min_value'],
  ])('%s out of range', async (field, value, code) => {
    const { error } = await refusal({ input: 'hi', [field]: value });
    expect(error).toMatchObject({ param: field, code });
  });

  it.each([
    ['a function output with no call before it', [user('hi'), functionOutput('call_a')]],
    ['a function output before its call', [user('hi'), functionOutput('call_a'), functionCall('call_a')]],
  ])('%s', async (_, input) => {
    const { error } = await refusal({ input, tools: TOOLS });
    expect(error).toEqual({
      message: 'No tool call found for function call output with call_id call_a.',
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });
  });

  it.each([
    ['another user message comes first', [user('hi'), functionCall('call_b'), user('well?')]],
    [
      'the input ends',
      [user('hi'), functionCall('call_a'), functionOutput('call_a'), functionCall('call_b')],
    ],
  ])('a function call left without output when %s', async (_, input) => {
    const { error } = await refusal({ input, tools: TOOLS });
    expect(error).toMatchObject({
      message: 'No tool output found for function call call_b.',
      param: 'input',
    });
  });

  it('a function call item whose id is a call id', async () => {
    const { error } = await refusal({
      input: [user('hi'), { ...functionCall('call_a'), id: 'call_a' }, functionOutput('call_a')],
    });
    expect(error).toEqual({
      message: "Invalid 'input[1].id': 'call_a'. Expected an ID that begins with 'fc'.",
      type: 'invalid_request_error',
      param: 'input[1].id',
      code: 'invalid_value',
    });
  });

  it('a function output without its output', async () => {
    const { error } = await refusal({
      input: [user('hi'), functionCall('call_a'), { type: 'function_call_output', call_id: 'call_a' }],
    });
    expect(error).toMatchObject({ param: 'input[2].output', code: 'missing_required_parameter' });
  });

  it('a content part that does not fit the role', async () => {
    const assistantInput = await refusal({
      input: [
        user('hi'),
        { role: 'assistant', content: [{ type: 'input_text', text: 'Hello' }] },
        user('and?'),
      ],
    });
    expect(assistantInput.error).toMatchObject({
      message: "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.",
      param: 'input[1].content[0]',
    });
    const userOutput = await refusal({
      input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }],
    });
    expect(userOutput.error).toMatchObject({ param: 'input[0].content[0]', code: 'invalid_value' });
  });

  it.each([
    ['a non-image media type', 'data:text/plain;base64,aGVsbG8=', 'invalid_value'],
    ['invalid base64', 'data:image/png;base64,not*base64', 'invalid_value'],
    ['bytes that are no image', 'data:image/png;base64,aGVsbG8gd29ybGQ=', 'invalid_image_format'],
  ])('an image data URL with %s', async (_, url, code) => {
    const { error } = await refusal({
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: url, detail: 'auto' }] }],
    });
    expect(error.code).toBe(code);
  });

  it('a chat-shaped tool, a tool_choice naming no tool, and a json_schema format without a name', async () => {
    const chatTool = await refusal({
      input: 'hi',
      tools: [{ type: 'function', function: { name: 'lookup', parameters: {} } }],
    });
    expect(chatTool.error).toMatchObject({ param: 'tools[0].function', code: 'unknown_parameter' });
    const choice = await refusal({
      input: 'hi',
      tools: TOOLS,
      tool_choice: { type: 'function', name: 'other' },
    });
    expect(choice.error).toMatchObject({ param: 'tool_choice' });
    const format = await refusal({ input: 'hi', text: { format: { type: 'json_schema', schema: {} } } });
    expect(format.error).toMatchObject({ param: 'text.format.name', code: 'missing_required_parameter' });
  });

  it('a strict function whose schema is not strict', async () => {
    const { error } = await refusal({
      input: 'hi',
      tools: [
        { type: 'function', name: 'lookup', strict: true, parameters: { type: 'object', properties: {} } },
      ],
    });
    expect(error).toMatchObject({ param: 'tools[0].parameters', code: 'invalid_function_parameters' });
  });

  it('state the fake never keeps: a previous response, a stored item', async () => {
    const previous = await refusal({ input: 'hi', previous_response_id: 'resp_abc' });
    expect(previous).toEqual({
      status: 404,
      error: {
        message: "Previous response with id 'resp_abc' not found.",
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
    });
    const reference = await refusal({ input: [user('hi'), { type: 'item_reference', id: 'msg_abc' }] });
    expect(reference.status).toBe(404);
  });
});

describe('fake Responses wire: reasoning items sent back', () => {
  /** A reasoning item and the message it led to, as the fake answered them. */
  async function reasoningTurn(): Promise<Record<string, unknown>[]> {
    fake.script(MODEL, { kind: 'answer', text: 'Four.', reasoning: 'Two and two make four.' });
    const response = await client.responses.create({
      model: MODEL,
      store: false,
      input: '2+2?',
      include: ['reasoning.encrypted_content'],
    });
    return response.output as unknown as Record<string, unknown>[];
  }

  it('takes its own reasoning back unchanged, followed by the message it led to', async () => {
    const turn = await reasoningTurn();
    const next = await client.responses.create({
      model: MODEL,
      store: false,
      input: [user('2+2?'), ...turn, user('And 3+3?')] as never,
    });
    expect(next.status).toBe('completed');
  });

  it.each([
    ['tampered with', (content: string) => `${content.slice(0, -4)}AAAA`],
    ['from elsewhere', () => 'gAAAAABpZm9yZWlnbi1jb250ZW50'],
    ['of another origin', () => 'switchyard:anthropic:eyJzaWduYXR1cmUiOiJ4In0'],
  ])('refuses encrypted content %s', async (_, change) => {
    const [reasoning, message] = await reasoningTurn();
    const changed = { ...reasoning, encrypted_content: change(String(reasoning!.encrypted_content)) };
    const { status, error } = await refusal({ input: [user('2+2?'), changed, message, user('and?')] });
    expect(status).toBe(400);
    expect(error).toEqual({
      message: `The encrypted content for item ${String(reasoning!.id)} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_encrypted_content',
    });
  });

  it('cannot look up reasoning sent without its encrypted content', async () => {
    const [reasoning, message] = await reasoningTurn();
    const { encrypted_content: _, ...bare } = reasoning!;
    const { status, error } = await refusal({ input: [user('2+2?'), bare, message, user('and?')] });
    expect(status).toBe(404);
    expect(error).toMatchObject({
      message: `Item with id '${String(reasoning!.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
      param: 'input',
    });
  });

  it('refuses reasoning without the item it led to', async () => {
    const [reasoning] = await reasoningTurn();
    const { error } = await refusal({ input: [user('2+2?'), reasoning, user('and?')] });
    expect(error).toEqual({
      message: `Item '${String(reasoning!.id)}' of type 'reasoning' was provided without its required following item.`,
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });
  });

  it('refuses the output-only status on a reasoning item, and a summary part of another type', async () => {
    const [reasoning, message] = await reasoningTurn();
    const withStatus = await refusal({
      input: [user('2+2?'), { ...reasoning, status: 'completed' }, message],
    });
    expect(withStatus.error).toMatchObject({ param: 'input[1].status', code: 'unknown_parameter' });
    const badSummary = { ...reasoning, summary: [{ type: 'text', text: 'x' }] };
    const summary = await refusal({ input: [user('2+2?'), badSummary, message] });
    expect(summary.error).toMatchObject({ param: 'input[1].summary[0].type', code: 'invalid_value' });
  });
});
