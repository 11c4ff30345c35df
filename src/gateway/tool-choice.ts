// The tool choice of the OpenAI surfaces (Chat Completions and Responses), made neutral and checked against the
// tools given. Node side, pure.
import type { Tool, ToolChoice } from '../config/request';
import { invalidField } from './parse-body';

/** The choice as a string (`auto`, `none`, `required`), or a 400 naming `tool_choice`. */
export function toolChoiceWord(choice: string): ToolChoice {
  if (choice !== 'auto' && choice !== 'none' && choice !== 'required') {
    throw invalidField('tool_choice', 'must be "auto", "none", "required" or a function');
  }
  return choice;
}

/**
 * `choice` if the tools can satisfy it: a call asked for needs tools, and a forced tool must be one of them
 * (`nameField` is where the surface carries its name).
 */
export function checkedToolChoice(choice: ToolChoice, tools: readonly Tool[], nameField: string): ToolChoice {
  if (choice === 'auto' || choice === 'none') return choice;
  if (tools.length === 0) throw invalidField('tool_choice', 'asks for a tool call but no tools are given');
  if (typeof choice !== 'string' && !tools.some((tool) => tool.name === choice.name)) {
    throw invalidField(nameField, `no tool is named "${choice.name}"`);
  }
  return choice;
}
