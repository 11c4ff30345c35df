// The package root: the application API and the types a caller needs. Node side.
export { SwitchyardClient, validateCallInput, planRoutedCall } from './client/switchyard-client';
export type {
  SwitchyardClientOptions,
  CallOptions,
  RoutedCallHandle,
  RoutedCallInspection,
} from './client/switchyard-client';
export { connectClient, connectWorker } from './client/connection';
export type { ConnectionSettings } from './client/connection';
export { RoutedCallError, InvalidRequestError } from './client/errors';
export { loadConfig, parseConfig, ConfigError } from './config/load-config';
export type { Config, ConfigInput } from './config/config';
export type { GenerationRequest, GenerationRequestInput } from './config/request';
export type { RoutedCallInputValue as RoutedCallInput } from './config/routed-call-input';
export type { RouteSpecInput } from './config/route';
export type { AttemptRecord, RoutingRecord, RoutedCallResult } from './routing/routing-record';
export { RoutedCallFailureType } from './routing/routing-record';
export { FailureClass } from './routing/failure-class';
export type { CallPlan } from './routing/call-plan';
export { createSwitchyardWorker, runWorker } from './worker';
