// Entry point of the bench's own workflow bundle (kept apart from src/workflows). Workflow code.
export { bareWorkflow } from './bare-workflow';
