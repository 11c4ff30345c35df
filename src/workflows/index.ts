// The workflow bundle's entry point: every workflow a Switchyard worker runs. Workflow code.
export { routedCallV2Workflow, routedCallWorkflow } from './routed-call/routed-call-workflow';
export { breakerWorkflow } from './breaker/breaker-workflow';
export { ledgerWorkflow } from './ledger/ledger-workflow';
export { responseCacheWorkflow } from './response-cache/response-cache-workflow';
export { scheduledGenerationWorkflow } from './scheduled-generation/scheduled-generation-workflow';
export { routeRegistryWorkflow } from './route-registry/route-registry-workflow';
