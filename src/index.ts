// The `switchyard` entry point: the application API and the types a caller needs; no worker code. Node side.
// The worker is `switchyard/worker` (src/worker-entry.ts); users' workflows import `switchyard/workflow`.
export { SwitchyardClient, validateCallInput, planRoutedCall } from './client/switchyard-client';
export type {
  SwitchyardClientOptions,
  CallOptions,
  RoutedCallHandle,
  RoutedCallInspection,
} from './client/switchyard-client';
export type { RoutedCallAnswer } from './client/early-answer';
export { connectClient } from './client/connection';
export type { ConnectionSettings, ClientSettings } from './client/connection';
export {
  AesGcmCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  UnknownCodecKeyError,
  PayloadDecryptionError,
} from './codec/aes-gcm-codec';
export {
  readCodecKeyring,
  createCodecKeyring,
  deriveKeyId,
  CodecKeyError,
  CODEC_KEY_VARIABLES,
} from './codec/codec-key';
export type { CodecKey, CodecKeyring } from './codec/codec-key';
export {
  dataConverterFromEnvironment,
  encryptingDataConverter,
  switchyardDataConverter,
} from './codec/data-converter';
export type { SwitchyardDataConverterOptions } from './codec/data-converter';
export { CodecSettingsError } from './codec/codec-settings-error';
export { PayloadTooLargeError, TEMPORAL_LIMITS, PAYLOAD_LIMIT_VARIABLES } from './codec/payload-limits';
export { PayloadStoreError } from './codec/payload-store';
export type { PayloadStore } from './codec/payload-store';
export { FilesystemPayloadStore } from './codec/filesystem-payload-store';
export {
  PayloadStoreCodec,
  MissingPayloadStoreCodec,
  PayloadStoreMissingError,
} from './codec/payload-store-codec';
export {
  PAYLOAD_STORE_VARIABLES,
  DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES,
} from './codec/payload-store-settings';
export type { PayloadStoreSettings } from './codec/payload-store-settings';
export { MissingKeyCodec, CodecKeyMissingError } from './codec/missing-key-codec';
export { startCodecServer, CodecRequestError, DEFAULT_CODEC_ORIGINS } from './codec/codec-server';
export type { CodecServer, CodecServerOptions } from './codec/codec-server';
export { RoutedCallError, InvalidRequestError, IdempotencyConflictError } from './client/errors';
export type { BudgetRefusal, RoutedCallErrorFields } from './client/errors';
export { loadConfig, parseConfig, ConfigError } from './config/load-config';
export type { Config, ConfigInput } from './config/config';
export type {
  AssistantMessage,
  CacheBreakpoint,
  DocumentPart,
  GenerationRequest,
  GenerationRequestInput,
  ImagePart,
  Message,
  ReasoningPart,
  TextPart,
  Tool,
  ToolCallPart,
  ToolChoice,
  ToolMessage,
  ToolResultPart,
  UserMessage,
} from './config/request';
export { assistantMessageOf } from './config/conversation';
export type { RoutedCallInputValue as RoutedCallInput } from './config/routed-call-input';
export type { RouteSpecInput } from './config/route';
export type { AttemptRecord, RoutingRecord, RoutedCallResult } from './routing/routing-record';
export { RoutedCallFailureType } from './routing/routing-record';
export { FailureClass } from './config/failure-class';
export type { CallPlan } from './routing/call-plan';
export { Breakers, BreakerUnavailableError } from './client/breakers';
export type {
  BreakerView,
  UnreadableBreaker,
  BreakersOptions,
  ListOptions as BreakerListOptions,
  ResetOptions as BreakerResetOptions,
} from './client/breakers';
export { BreakerStatus, BreakerTransitionReason } from './routing/breaker-state';
export type {
  BreakerState,
  BreakerTransition,
  BreakerCounts,
  BreakerProbe,
  SeenBreakerPolicy,
} from './routing/breaker-state';
export { judgeBreaker } from './routing/breaker-judgement';
export type { BreakerJudgement, JudgedBreakerPolicy } from './routing/breaker-judgement';
export { Ledgers } from './client/ledgers';
export type { LedgersOptions } from './client/ledgers';
export type { Budget, BudgetLimitChange } from './config/budget';
export type { LedgerSnapshot, OpenReservationView } from './routing/ledger-snapshot';
export type {
  ReservationDecision,
  ReservationGrant,
  ReservationRefusal,
  LedgerTotals,
} from './routing/ledger-state';
export { LedgerPeriod } from './config/budget';
export { Routes, RouteInUseError, RouteNotFoundError } from './client/routes';
export type {
  RoutesOptions,
  RouteView,
  RouteDetails,
  RouteUser,
  RouteChangeOptions,
  GatewayKeyRoutes,
} from './client/routes';
export type { RouteAuditEntry, RouteSource } from './config/runtime-routes';
export { Schedules } from './client/schedules';
export type {
  SchedulesOptions,
  ScheduleView,
  ScheduleRunReference,
  ScheduledRun,
  PauseOptions as SchedulePauseOptions,
  TriggerOptions as ScheduleTriggerOptions,
  ResultsOptions as ScheduleResultsOptions,
} from './client/schedules';
export type { ScheduleChange } from './client/schedule-change';
export {
  OverlapPolicy,
  DEFAULT_OVERLAP_POLICY,
  DEFAULT_CATCHUP_WINDOW_MS,
  DEFAULT_SCHEDULED_PATIENCE_MS,
} from './config/schedule';
export type { ScheduleDefinition, ScheduleDefinitionInput, DeliverySpec } from './config/schedule';
export type {
  ScheduledCallOutcome,
  ScheduledCallSucceeded,
  ScheduledCallFailed,
  ScheduledGenerationResult,
  DeliveryReport,
  DeliveryResult,
} from './workflows/scheduled-generation/definitions';
export { parseDuration, formatDuration } from './config/duration';
export { startGateway } from './gateway/gateway-server';
export type { Gateway, GatewayOptions } from './gateway/gateway-server';
export { KeyStore, KeyFileError, DEFAULT_KEYS_FILE } from './gateway/key-store';
export type { KeyStoreOptions } from './gateway/key-store';
export type { StoredKey } from './gateway/gateway-key';
export { GatewayError, GatewayErrorKind } from './gateway/gateway-error';
