// The gateway process's memory under concurrent streams: `switchyard serve` in a process of its own. Bench side.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeyStore } from 'switchyard';
import { startGatewayProcess } from 'switchyard/testing';
import type { GatewayPathsSetup } from './gateway-paths';
import { gatewayPaths, type PathTiming } from './gateway-paths';
import { round, summarize, type Summary } from './stats';
import { procRssBytes } from './worker-link';

export interface GatewayMemoryResult {
  readonly concurrency: number;
  readonly durationS: number;
  readonly calls: number;
  readonly errors: number;
  readonly callsPerS: number;
  readonly timeToFirstToken: Summary;
  /** The gateway process's RSS once it listens, before any call, and the most sampled under load, in MB. */
  readonly idleRssMb: number;
  readonly peakRssMb: number;
}

/** How often the gateway's RSS is read while the streams run, in milliseconds. */
const RSS_SAMPLE_MS = 200;
const toMb = (bytes: number | undefined) => round((bytes ?? 0) / 2 ** 20);

/**
 * Starts `switchyard serve` on `configFile` against `temporalAddress`, sending calls to `taskQueue` (whose workers
 * must allow its relay), then runs `concurrency` Chat Completions streams through it for `durationMs`, each caller
 * starting its next stream when one ends, and reads the process's RSS throughout.
 */
export async function measureGatewayMemory(options: {
  readonly configFile: string;
  readonly temporalAddress: string;
  readonly taskQueue: string;
  readonly paths: Omit<GatewayPathsSetup, 'gatewayUrl' | 'gatewayKey'>;
  readonly concurrency: number;
  readonly durationMs: number;
}): Promise<GatewayMemoryResult> {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-gateway-'));
  const keysFile = path.join(directory, 'keys.json');
  // The gateway admits 32 requests at once per key by default: two keys carry 50 streams, as two teams would.
  const store = new KeyStore({ file: keysFile });
  const keys = [store.create({ routes: ['*'] }).key, store.create({ routes: ['*'] }).key];
  const gateway = await startGatewayProcess({
    configFile: options.configFile,
    keysFile,
    temporalAddress: options.temporalAddress,
    taskQueue: options.taskQueue,
  });
  const pid = gateway.child.pid!;
  try {
    const streams = keys.map(
      (gatewayKey) => gatewayPaths({ ...options.paths, gatewayUrl: gateway.url, gatewayKey }).chatStream,
    );
    // One stream first, so the idle figure is of a gateway that has loaded what a call needs.
    await streams[0]!();
    const idleRssMb = toMb(procRssBytes(pid));
    let peak = idleRssMb;
    const sampler = setInterval(() => (peak = Math.max(peak, toMb(procRssBytes(pid)))), RSS_SAMPLE_MS);
    const samples: PathTiming[] = [];
    let errors = 0;
    const began = performance.now();
    const until = began + options.durationMs;
    await Promise.all(
      Array.from({ length: options.concurrency }, async (_, caller) => {
        const stream = streams[caller % streams.length]!;
        while (performance.now() < until) {
          try {
            samples.push(await stream());
          } catch {
            errors += 1;
          }
        }
      }),
    );
    clearInterval(sampler);
    const elapsedS = (performance.now() - began) / 1000;
    return {
      concurrency: options.concurrency,
      durationS: round(elapsedS),
      calls: samples.length,
      errors,
      callsPerS: round(samples.length / elapsedS),
      timeToFirstToken: summarize(samples.map((sample) => sample.ttftMs)),
      idleRssMb,
      peakRssMb: Math.max(peak, toMb(procRssBytes(pid))),
    };
  } finally {
    await gateway.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Writes the config a gateway process reads (`--config`) into a temporary file; returns its path and cleanup. */
export function writeConfigFile(config: unknown): { readonly file: string; remove(): void } {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-config-'));
  const file = path.join(directory, 'switchyard.config.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return { file, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
