// Test-only workflow bundle: the ledger as code from before allowances replays it, in the one way that matters to
// replay: it never marks a run that holds allowances. Bundled with `@temporalio/workflow` resolved to
// ./workflow-without-memo (see the replay test). Workflow code.
export { ledgerWorkflow } from '../../src/workflows/ledger/ledger-workflow';
