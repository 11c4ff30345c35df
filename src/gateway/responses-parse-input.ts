// OpenAI Responses input items → the neutral conversation's system parts and messages. Node side.
import { z } from 'zod';
import type {
  AssistantContentPart,
  Message,
  TextPart,
  ToolResultContentPart,
  ToolResultPart,
  UserContentPart,
} from '../config/request';
import { documentPartOf, imagePartOf } from './responses-parse-media';
import { reasoningOrigin } from './responses-reasoning-origin';
import { blockType, checkField, fieldPath, invalidField } from './parse-body';

const InputTextSchema = z.strictObject({ type: z.literal('input_text'), text: z.string() });

const OutputTextSchema = z.strictObject({
  type: z.literal('output_text'),
  text: z.string(),
  // An answer's part sent back unchanged: citations and log probabilities describe the text, they add nothing.
  annotations: z.array(z.unknown()).optional(),
  logprobs: z.array(z.unknown()).nullish(),
  // The SDKs' parse of the text (their stream helpers add it): derived from the text, it adds nothing.
  parsed: z.unknown().optional(),
});

const RefusalSchema = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });

/** An item's lifecycle status, as answers return it and clients send it back: it changes nothing. */
const status = z.enum(['in_progress', 'completed', 'incomplete']).nullish();

const MessageItemSchema = z.strictObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(z.unknown())]),
  id: z.string().nullish(),
  status,
  // Which stage of a multi-phase answer an assistant message was: a label of the answer, not an instruction.
  phase: z.enum(['commentary', 'final_answer']).nullish(),
});

const FunctionCallItemSchema = z.strictObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1, 'a function call needs its call_id'),
  name: z.string().min(1, 'a function call needs its name'),
  arguments: z.string(),
  id: z.string().nullish(),
  status,
  // The SDKs' parse of the arguments (their stream helpers add it): derived from them, it adds nothing.
  parsed_arguments: z.unknown().optional(),
});

const FunctionCallOutputItemSchema = z.strictObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1, 'a function call output needs the call_id of its call'),
  output: z.union([z.string(), z.array(z.unknown())]),
  id: z.string().nullish(),
  status,
});

const ReasoningItemSchema = z.strictObject({
  type: z.literal('reasoning'),
  id: z.string().min(1, 'a reasoning item needs its id'),
  summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
  // The raw reasoning text some models show; what goes back to a model is the summary and encrypted content.
  content: z.array(z.strictObject({ type: z.literal('reasoning_text'), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
  status,
});

/** Why an item type OpenAI defines cannot be routed. */
const REFUSED_ITEMS: Readonly<Record<string, string>> = {
  item_reference:
    'names no output item of a stored response of this key; send the item itself, or previous_response_id',
  custom_tool_call: 'custom (free-form) tool calls cannot be routed; define function tools',
  custom_tool_call_output: 'custom (free-form) tool calls cannot be routed; define function tools',
  compaction: 'a compaction item is encrypted by one provider and cannot be routed',
};

function textPart(raw: unknown, path: string): TextPart {
  return { type: 'text', text: checkField(InputTextSchema, raw, path).text };
}

function userPart(raw: unknown, path: string): UserContentPart {
  const type = blockType(raw, path);
  switch (type) {
    case 'input_text':
      return textPart(raw, path);
    case 'input_image':
      return imagePartOf(raw, path);
    case 'input_file':
      return documentPartOf(raw, path);
    case 'input_audio':
      throw invalidField(fieldPath(path, 'type'), 'audio input cannot be routed');
    default:
      throw invalidField(fieldPath(path, 'type'), `"${type}" parts are not supported in user messages`);
  }
}

/** Text parts only (system and developer messages). */
function instructionParts(content: string | readonly unknown[], path: string, role: string): TextPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((raw, index) => {
    const partPath = fieldPath(path, index);
    const type = blockType(raw, partPath);
    if (type !== 'input_text') {
      throw invalidField(
        fieldPath(partPath, 'type'),
        `${role} messages hold input_text parts only, not "${type}"`,
      );
    }
    return textPart(raw, partPath);
  });
}

/** An assistant message's text: what it said, a refusal included (that is what it said). */
function assistantTexts(content: string | readonly unknown[], path: string): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((raw, index) => {
    const partPath = fieldPath(path, index);
    const type = blockType(raw, partPath);
    if (type === 'output_text')
      return { type: 'text', text: checkField(OutputTextSchema, raw, partPath).text };
    if (type === 'refusal') return { type: 'text', text: checkField(RefusalSchema, raw, partPath).refusal };
    throw invalidField(
      fieldPath(partPath, 'type'),
      `assistant messages hold output_text and refusal parts only, not "${type}"`,
    );
  });
}

function toolOutputPart(raw: unknown, path: string): ToolResultContentPart {
  const type = blockType(raw, path);
  if (type === 'input_text') return textPart(raw, path);
  if (type === 'input_image') return imagePartOf(raw, path);
  throw invalidField(
    fieldPath(path, 'type'),
    `a function call output holds input_text and input_image parts, not "${type}"`,
  );
}

export interface ConvertedInput {
  /** System and developer messages' text, in order (the request's `instructions` come before them). */
  readonly system: TextPart[];
  readonly messages: Message[];
}

/**
 * The input items as neutral messages. Items the model produced (reasoning, assistant messages, function calls)
 * that follow one another make one assistant message, as one answer returns them; function call outputs that
 * follow one another make one tool message. System and developer messages become system text wherever they
 * stand (the neutral request has one system prompt).
 */
export function convertInput(input: string | readonly unknown[]): ConvertedInput {
  if (typeof input === 'string') return { system: [], messages: [{ role: 'user', content: input }] };
  const system: TextPart[] = [];
  const messages: Message[] = [];
  // Outputs name only the call's id; formats that want the tool's name get it from the call.
  const toolNames = new Map<string, string>();
  const assistant = (parts: AssistantContentPart[]) => {
    const previous = messages.at(-1);
    if (previous?.role === 'assistant' && typeof previous.content !== 'string')
      previous.content.push(...parts);
    else messages.push({ role: 'assistant', content: parts });
  };
  for (const [index, raw] of input.entries()) {
    const path = fieldPath('input', index);
    const item = checkField(z.looseObject({ type: z.string().optional(), role: z.unknown() }), raw, path);
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === undefined) throw invalidField(fieldPath(path, 'type'), 'an input item needs its type');
    switch (type) {
      case 'message': {
        const message = checkField(MessageItemSchema, raw, path);
        const contentPath = fieldPath(path, 'content');
        if (message.role === 'system' || message.role === 'developer') {
          system.push(...instructionParts(message.content, contentPath, message.role));
        } else if (message.role === 'assistant') {
          const texts = assistantTexts(message.content, contentPath);
          // A turn that said nothing (an empty answer sent back) still holds its place: one empty text part.
          assistant(texts.length > 0 ? texts : [{ type: 'text', text: '' }]);
        } else if (typeof message.content === 'string') {
          if (message.content === '') throw invalidField(contentPath, 'a message needs content');
          messages.push({ role: 'user', content: message.content });
        } else {
          if (message.content.length === 0) throw invalidField(contentPath, 'a message needs content');
          const parts = message.content.map((part, partIndex) =>
            userPart(part, fieldPath(contentPath, partIndex)),
          );
          messages.push({ role: 'user', content: parts });
        }
        break;
      }
      case 'function_call': {
        const call = checkField(FunctionCallItemSchema, raw, path);
        toolNames.set(call.call_id, call.name);
        assistant([{ type: 'tool_call', id: call.call_id, name: call.name, arguments: call.arguments }]);
        break;
      }
      case 'function_call_output': {
        const output = checkField(FunctionCallOutputItemSchema, raw, path);
        const outputPath = fieldPath(path, 'output');
        const name = toolNames.get(output.call_id);
        const result: ToolResultPart = {
          type: 'tool_result',
          callId: output.call_id,
          ...(name !== undefined ? { name } : {}),
          content:
            typeof output.output === 'string'
              ? output.output
              : output.output.map((part, partIndex) =>
                  toolOutputPart(part, fieldPath(outputPath, partIndex)),
                ),
        };
        const previous = messages.at(-1);
        if (previous?.role === 'tool') previous.content.push(result);
        else messages.push({ role: 'tool', content: [result] });
        break;
      }
      case 'reasoning': {
        const item = checkField(ReasoningItemSchema, raw, path);
        const part = reasoningOrigin.reasoningOf({
          id: item.id,
          text: item.summary.map((summary) => summary.text).join('\n\n'),
          encryptedContent: item.encrypted_content,
        });
        if (!part) {
          throw invalidField(
            fieldPath(path, 'encrypted_content'),
            'this encrypted content was not written by the gateway',
          );
        }
        assistant([part]);
        break;
      }
      default: {
        const why = REFUSED_ITEMS[type];
        throw invalidField(
          fieldPath(path, 'type'),
          why ??
            `"${type}" items belong to a built-in tool Switchyard does not run; only messages, function calls, their outputs and reasoning can be routed`,
        );
      }
    }
  }
  return { system, messages };
}
