// The `switchyard/workflow` entry point: routed calls from inside users' own workflows, and their types. Workflow code.
// Import it only from workflow code; it is bundled with your workflows and loads nothing but the workflow SDK.
export { routedCall } from './routed-call';
export type { RoutedCallOptions } from './routed-call';
export { RoutedCallFailure } from './routed-call-failure';
export { RoutedCallUsageError } from './call-name';
export type { ChildCallFailureType as RoutedCallFailureKind } from '../workflows/routed-call-child';
export {
  DEFAULT_TASK_QUEUE,
  ROUTED_CALL_WORKFLOW_TYPE,
  childCallWorkflowId,
  routedCallWorkflowId,
} from '../workflows/definitions';
export {
  SWITCHYARD_SEARCH_ATTRIBUTES,
  costUsdAttribute,
  fallbacksAttribute,
  outcomeAttribute,
  routeAttribute,
  servedByAttribute,
} from '../workflows/search-attributes';
export { AttemptOutcome, RoutedCallFailureType, SkipReason } from '../routing/routing-record';
export type { AttemptRecord, RoutedCallResult, RoutingRecord } from '../routing/routing-record';
export { FailureClass } from '../config/failure-class';
export type { RoutedCallInputValue as RoutedCallInput } from '../config/routed-call-input';
export type {
  AssistantMessage,
  GenerationRequestInput,
  Message,
  ReasoningPart,
  Tool,
  ToolMessage,
  UserMessage,
} from '../config/request';
export { assistantMessageOf } from '../config/conversation';
export type { RouteSpecInput } from '../config/route';
export type { FinishReason, ToolCall, Usage } from '../providers/types';
