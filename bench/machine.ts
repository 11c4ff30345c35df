// A description of the machine a run measured: CPU, memory, OS, runtimes, and how busy it was. Bench side.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { ensureTemporalCli } from 'switchyard/testing';

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cpus: number;
  readonly memoryGb: number;
  readonly os: string;
  readonly kernel: string;
  readonly node: string;
  readonly temporalCli: string;
  /** 1-minute load average just before the run started anything. */
  readonly loadAverageAtStart: number;
  /** Single-core speed, to compare machines: see {@link calibrate}. */
  readonly calibration?: Calibration;
}

export interface Calibration {
  /** 200 000 small objects built and JSON-stringified, in milliseconds. */
  readonly allocateAndStringifyMs: number;
  /** CPU per `fetch` POST to a local `node:http` server in the same process, in milliseconds. */
  readonly localFetchCpuMs: number;
}

/** Two small workloads, about a second in all, that show how fast one core of this machine is. */
export async function calibrate(): Promise<Calibration> {
  const began = performance.now();
  let length = 0;
  for (let index = 0; index < 200_000; index += 1) {
    length += JSON.stringify({ index, text: `item ${index}`, pair: [index, index + 1] }).length;
  }
  const allocateAndStringifyMs = performance.now() - began;
  void length;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const post = async () => (await fetch(url, { method: 'POST', body: '{}' })).text();
  for (let index = 0; index < 50; index += 1) await post();
  const cpuBefore = process.cpuUsage();
  const requests = 300;
  for (let index = 0; index < requests; index += 1) await post();
  const cpu = process.cpuUsage(cpuBefore);
  await new Promise((resolve) => server.close(resolve));
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    allocateAndStringifyMs: round(allocateAndStringifyMs),
    localFetchCpuMs: round((cpu.user + cpu.system) / 1000 / requests),
  };
}

function temporalVersion(): string {
  try {
    return execFileSync(ensureTemporalCli({ quiet: true }), ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export function describeMachine(): MachineDescription {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.arch()}`,
    kernel: os.release(),
    node: process.version,
    temporalCli: temporalVersion(),
    loadAverageAtStart: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}
