// `switchyard worker`: runs a Switchyard worker until SIGINT / SIGTERM. Node side.
import type { Command } from '../command';
import { UsageError } from '../cli-errors';
import { temporalUnreachable } from '../temporal-unreachable';
import { ExitCode } from '../exit-codes';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { parseCommandArguments } from '../parse-arguments';

const HELP = renderHelp({
  usage: ['switchyard worker [options]'],
  description: [
    'Runs the workflows and provider attempts of the task queue until SIGINT or SIGTERM, then finishes the',
    'work in hand and exits 0. Reads the config file for providers, models and routes; API keys come from',
    'the environment variables the config names, and never leave the worker. Run more than one worker, on',
    'as many machines as you like, for more throughput.',
  ],
  sections: [{ title: 'Global', flags: GLOBAL_FLAGS }],
  examples: [
    'switchyard worker',
    'switchyard worker --config ./switchyard.config.json --task-queue switchyard-batch',
    'TEMPORAL_ADDRESS=temporal.internal:7233 TEMPORAL_NAMESPACE=prod switchyard worker',
  ],
  notes: [
    'Metrics: Prometheus text (temporal_* and switchyard_* series) at http://127.0.0.1:9464/metrics;\n' +
      'SWITCHYARD_METRICS_PORT=<port>|off and SWITCHYARD_METRICS_HOST=<ip> change where.',
    EXIT_CODES_NOTE,
  ],
});

export const workerCommand: Command = {
  name: 'worker',
  help: () => HELP,
  async run(argv) {
    const globals = readGlobalOptions(parseCommandArguments(argv, GLOBAL_FLAGS, { allowPositionals: false }));
    // Loaded here, not at the top: the worker brings the native runtime, the activities and every provider
    // SDK, which `--help` and the argument checks above (and their tests) should not pay for.
    const { runWorker } = require('../../worker') as typeof import('../../worker');
    const { TransportError } = require('@temporalio/worker') as typeof import('@temporalio/worker');
    const { MetricsSettingsError } =
      require('../../metrics/worker-runtime') as typeof import('../../metrics/worker-runtime');
    const { CodecSettingsError } =
      require('../../codec/codec-settings-error') as typeof import('../../codec/codec-settings-error');
    const { RelayOriginsError } =
      require('../../activities/relay-origins') as typeof import('../../activities/relay-origins');
    try {
      // The worker's runtime turns SIGINT / SIGTERM into a graceful shutdown, after which `run` resolves.
      await runWorker({
        address: globals.address,
        namespace: globals.namespace,
        configFile: globals.configFile,
        taskQueue: globals.taskQueue,
      });
    } catch (error) {
      if (error instanceof TransportError) throw temporalUnreachable(globals, error);
      // A bad codec key, payload store or relay origins setting (CodecKeyError is one of them).
      if (
        error instanceof MetricsSettingsError ||
        error instanceof CodecSettingsError ||
        error instanceof RelayOriginsError
      )
        throw new UsageError(error.message);
      throw error;
    }
    return ExitCode.ok;
  },
};
