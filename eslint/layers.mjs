// An ESLint rule that keeps imports pointing down the layers of src/: a module may import its own layer or a lower
// one, never a higher one. Cycles within and across layers are caught by import-x/no-cycle beside it.
import path from 'node:path';

/**
 * The layers of src/, highest first. Each entry is a folder (or a root file without `.ts`) under src/.
 * cli and gateway → client and worker → activities and tracing → workflows → routing and providers → config.
 */
export const LAYERS = [
  ['index', 'testing', 'cli', 'gateway', 'fake-provider'],
  ['client', 'worker', 'worker-entry', 'workflow-bundle', 'workflow-bundle-process', 'engine', 'metrics'],
  ['activities', 'tracing'],
  ['workflows', 'workflow'],
  // in-process-answers: the hand-over between a client and a worker of the same process, below both.
  ['routing', 'providers', 'codec', 'in-process-answers'],
  ['config'],
];

/**
 * Imports allowed upward as types only: workflow code proxies activities through their types
 * (`proxyActivities<typeof activities>`), the one place Temporal's design points a type up.
 */
const TYPE_ONLY_UPWARD = [
  ['workflows', 'activities'],
  ['workflow', 'activities'],
];

function rankOf(unit) {
  const index = LAYERS.findIndex((layer) => layer.includes(unit));
  return index === -1 ? undefined : LAYERS.length - index;
}

/** The folder (or root file) under src/ a path belongs to, or undefined outside src/. */
function unitOf(file, srcRoot) {
  const relative = path.relative(srcRoot, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const [first] = relative.split(path.sep);
  return first.replace(/\.ts$/, '');
}

function isTypeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

const noUpwardImport = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports point down the layers of src/ (see eslint/layers.mjs).' },
    schema: [],
    messages: {
      upward:
        '{{from}} (layer {{fromRank}}) must not import {{to}} (layer {{toRank}}): imports point down the layers.',
      unknown: '{{unit}} is in no layer: add it to LAYERS in eslint/layers.mjs.',
    },
  },
  create(context) {
    const file = context.filename;
    const srcRoot = path.join(context.cwd, 'src');
    const from = unitOf(file, srcRoot);
    if (from === undefined) return {};
    const fromRank = rankOf(from);
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = unitOf(path.resolve(path.dirname(file), source), srcRoot);
      if (to === undefined || to === from) return;
      const toRank = rankOf(to);
      if (fromRank === undefined || toRank === undefined) {
        context.report({ node, messageId: 'unknown', data: { unit: fromRank === undefined ? from : to } });
        return;
      }
      if (toRank <= fromRank) return;
      if (isTypeOnly(node) && TYPE_ONLY_UPWARD.some(([a, b]) => a === from && b === to)) return;
      context.report({ node, messageId: 'upward', data: { from, to, fromRank, toRank } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export const layersPlugin = { rules: { 'no-upward-import': noUpwardImport } };
