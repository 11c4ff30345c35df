// Test-only stand-in for `@temporalio/workflow` in a workflow bundle: everything as is, except that a memo upsert
// gives no command, as code from before allowances never gave one. Workflow code.
export * from '@temporalio/workflow/lib/index';

export function upsertMemo(): void {}
