// The fake's Responses wire as server-sent events: the real event sequence, numbered from 0, for one answer.
// Pure apart from the reasoning's encryption; test/bench side.
import { splitIntoDeltas, type FakeAnswer, type FakeParsedRequest } from './answer';
import { sseEvent } from './content-text';
import type { FakeResponseIds, FakeStreamEvents } from './provider-wire';
import { outcomeOf, outputItems, responseObject, usageObject, type ResponsesItem } from './responses-output';

/** One event: `event: <type>` and data whose `type` and `sequence_number` come first, as the real API writes them. */
export function responsesEvent(
  type: string,
  sequenceNumber: number,
  fields: Record<string, unknown>,
): string {
  return sseEvent({ type, sequence_number: sequenceNumber, ...fields }, type);
}

/** Events of one output item, between its `output_item.added` and `output_item.done`. */
function itemEvents(
  item: ResponsesItem,
  outputIndex: number,
  emit: (type: string, fields: Record<string, unknown>) => void,
): void {
  const itemId = item.id;
  const at = { item_id: itemId, output_index: outputIndex };
  switch (item.type) {
    case 'reasoning': {
      emit('response.output_item.added', {
        output_index: outputIndex,
        item: { id: itemId, type: 'reasoning', summary: [] },
      });
      const summary = item.summary as { type: string; text: string }[];
      for (const [summaryIndex, part] of summary.entries()) {
        const atPart = { ...at, summary_index: summaryIndex };
        emit('response.reasoning_summary_part.added', {
          ...atPart,
          part: { type: 'summary_text', text: '' },
        });
        for (const delta of splitIntoDeltas(part.text))
          emit('response.reasoning_summary_text.delta', { ...atPart, delta });
        emit('response.reasoning_summary_text.done', { ...atPart, text: part.text });
        emit('response.reasoning_summary_part.done', { ...atPart, part });
      }
      break;
    }
    case 'message': {
      emit('response.output_item.added', {
        output_index: outputIndex,
        item: { id: itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
      const content = item.content as Record<string, unknown>[];
      for (const [contentIndex, part] of content.entries()) {
        const atPart = { ...at, content_index: contentIndex };
        if (part.type === 'refusal') {
          const refusal = String(part.refusal);
          emit('response.content_part.added', { ...atPart, part: { type: 'refusal', refusal: '' } });
          for (const delta of splitIntoDeltas(refusal)) emit('response.refusal.delta', { ...atPart, delta });
          emit('response.refusal.done', { ...atPart, refusal });
        } else {
          const text = String(part.text);
          emit('response.content_part.added', {
            ...atPart,
            part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
          });
          for (const delta of splitIntoDeltas(text)) {
            emit('response.output_text.delta', { ...atPart, delta, logprobs: [] });
          }
          emit('response.output_text.done', { ...atPart, text, logprobs: [] });
        }
        emit('response.content_part.done', { ...atPart, part });
      }
      break;
    }
    case 'function_call': {
      emit('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      const argumentsText = String(item.arguments);
      const half = Math.ceil(argumentsText.length / 2);
      for (const delta of [argumentsText.slice(0, half), argumentsText.slice(half)]) {
        if (delta !== '') emit('response.function_call_arguments.delta', { ...at, delta });
      }
      emit('response.function_call_arguments.done', { ...at, arguments: argumentsText, name: item.name });
      break;
    }
    default:
      throw new Error(`no stream events for output item type ${String(item.type)}`);
  }
  emit('response.output_item.done', { output_index: outputIndex, item });
}

/**
 * The whole stream: `response.created` and `response.in_progress`, every output item's events, then the final
 * `response.completed` (or `response.incomplete`) carrying the whole response and its usage.
 */
export function responsesStreamEvents(
  answer: FakeAnswer,
  request: FakeParsedRequest,
  ids: FakeResponseIds,
): FakeStreamEvents {
  let sequenceNumber = 0;
  const events: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => {
    events.push(responsesEvent(type, sequenceNumber, fields));
    sequenceNumber += 1;
  };
  const pending = responseObject(request, ids, { status: 'in_progress', output: [], usage: null });
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  const output = outputItems(answer, request, ids);
  for (const [index, item] of output.entries()) itemEvents(item, index, emit);

  const outcome = outcomeOf(answer);
  const finished = responseObject(request, ids, {
    status: outcome.status,
    output,
    usage: usageObject(answer),
    incompleteDetails: outcome.incompleteDetails,
  });
  const finalType = outcome.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  const finalEvents = [responsesEvent(finalType, sequenceNumber, { response: finished })];
  return { events, finalEvents };
}
