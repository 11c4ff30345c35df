// LiteLLM's proxy as the bench's peer lane: find its venv, start it on the fake endpoints, call it. Bench side.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { stringify } from 'yaml';
import { LITELLM_VERSION, litellmVenv, venvExecutable } from '../scripts/python-clients';
import {
  BENCH_KEYS,
  BENCH_MODELS,
  BENCH_REQUEST,
  LATENCY_MODES,
  type FakeBaseUrls,
  type LatencyMode,
} from './bench-config';
import { procRssBytes } from './worker-link';

const ROOT = path.join(__dirname, '..');

/** The key the proxy is started with (`general_settings.master_key`) and every bench call sends. */
export const LITELLM_MASTER_KEY = 'sk-litellm-bench-master-key';

/** The proxy's model name of each latency mode: one deployment each, on that mode's fake endpoint. */
export const LITELLM_MODEL: Readonly<Record<LatencyMode, string>> = {
  '0ms': `${BENCH_MODELS.healthy}-0ms`,
  '50ms': `${BENCH_MODELS.healthy}-50ms`,
};

/** Where a peer call goes: the proxy's base URL for the `openai` SDK and the key it accepts. */
export interface LitellmEndpoint {
  readonly baseURL: string;
  readonly apiKey: string;
}

export type LitellmAvailability =
  | { readonly available: true; readonly executable: string }
  | { readonly available: false; readonly reason: string };

/** Whether the project-local LiteLLM install (npm run bench:litellm:install) is there to run. */
export function findLitellm(root = ROOT): LitellmAvailability {
  const executable = venvExecutable(litellmVenv(root), 'litellm');
  if (!existsSync(executable)) {
    const python = process.env.PYTHON ?? 'python3';
    const reason =
      spawnSync(python, ['--version']).status === 0
        ? `${path.relative(root, executable)} is missing: run "npm run bench:litellm:install"`
        : `${python} not found`;
    return { available: false, reason };
  }
  return { available: true, executable };
}

/** The proxy's config: one deployment per latency mode, no retries, no callbacks, the fake's own key. */
export function litellmConfig(fakeUrls: FakeBaseUrls): Record<string, unknown> {
  return {
    model_list: LATENCY_MODES.map((mode) => ({
      model_name: LITELLM_MODEL[mode],
      litellm_params: {
        // `openai/` makes LiteLLM use its OpenAI client on `api_base`: the same wire as the direct call.
        model: `openai/${BENCH_MODELS.healthy}`,
        api_base: fakeUrls[mode],
        api_key: BENCH_KEYS.BENCH_FAKE_KEY,
      },
    })),
    // Retries off on both sides, as the direct and routed lanes have them (the SDKs' maxRetries: 0).
    router_settings: { num_retries: 0 },
    litellm_settings: { num_retries: 0, request_timeout: 30, telemetry: false, set_verbose: false },
    general_settings: { master_key: LITELLM_MASTER_KEY },
  };
}

/**
 * The proxy's environment: the model cost map from the installed package (not downloaded at start), no
 * telemetry, errors only in its log. Nothing in it should reach beyond 127.0.0.1.
 */
export function litellmEnvironment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LITELLM_LOCAL_MODEL_COST_MAP: 'True',
    LITELLM_TELEMETRY: 'False',
    LITELLM_LOG: 'ERROR',
    LITELLM_DONT_SHOW_FEEDBACK_BOX: 'true',
    // The caller's shell may set an HTTP proxy: the loopback calls to the fake must not go through it.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    PYTHONUNBUFFERED: '1',
  };
}

export interface LitellmProxy {
  readonly endpoint: LitellmEndpoint;
  /** The proxy's Python process (uvicorn with one worker runs in it): for CPU and RSS. */
  readonly pid: number;
  readonly version: string;
  /** Its resident set size now, in bytes (Linux /proc); undefined when it cannot be read. */
  rssBytes(): number | undefined;
  /** The last lines of its log (stdout and stderr), for error messages. */
  logTail(): string;
  /** SIGTERM, then SIGKILL after 5 s; removes the generated config. */
  stop(): Promise<void>;
}

export interface StartLitellmOptions {
  readonly fakeUrls: FakeBaseUrls;
  /** The `litellm` console script. @default the project-local venv's */
  readonly executable?: string;
  /** How long the proxy may take to answer its liveness probe, in milliseconds. @default 90000 */
  readonly readyTimeoutMs?: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `litellm --config <generated yaml>` with one uvicorn worker on 127.0.0.1 and waits until it is live. */
export async function startLitellmProxy(options: StartLitellmOptions): Promise<LitellmProxy> {
  const executable = options.executable ?? venvExecutable(litellmVenv(ROOT), 'litellm');
  const directory = mkdtempSync(path.join(os.tmpdir(), 'switchyard-litellm-'));
  const configPath = path.join(directory, 'litellm.yaml');
  const logPath = path.join(directory, 'litellm.log');
  writeFileSync(configPath, stringify(litellmConfig(options.fakeUrls)));
  const port = await freePort();
  // The log goes to a file, not a pipe: nobody reads it during the bench, and a full pipe would stall the proxy.
  const log = openSync(logPath, 'w');
  const child: ChildProcess = spawn(
    executable,
    [
      '--config',
      configPath,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--num_workers',
      '1',
      '--telemetry',
      'False',
    ],
    // Its working directory is the temporary one, so no stray .env file is loaded.
    { cwd: directory, env: litellmEnvironment(), stdio: ['ignore', log, log] },
  );
  closeSync(log);
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `exited (code ${code}, signal ${signal})`;
      resolve();
    });
    child.once('error', (error) => {
      exited = `failed to start: ${error.message}`;
      resolve();
    });
  });
  const logTail = () => {
    try {
      return readFileSync(logPath, 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(timer);
    }
    rmSync(directory, { recursive: true, force: true });
  };

  const baseURL = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  try {
    for (;;) {
      if (exited !== undefined) throw new Error(`litellm ${exited} before it was ready`);
      if (Date.now() > deadline)
        throw new Error(`litellm not live after ${options.readyTimeoutMs ?? 90_000} ms`);
      const live = await fetch(`${baseURL}/health/liveliness`, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.ok,
        () => false,
      );
      if (live) break;
      await pause(200);
    }
  } catch (error) {
    const tail = logTail();
    await stop();
    throw new Error(`${(error as Error).message}\n${tail}`);
  }
  return {
    endpoint: { baseURL, apiKey: LITELLM_MASTER_KEY },
    pid: child.pid!,
    version: LITELLM_VERSION,
    rssBytes: () => procRssBytes(child.pid!),
    logTail,
    stop,
  };
}

/** What the bench got of the peer lane: a running proxy, or why there is none. */
export type LitellmLane =
  | { readonly proxy: LitellmProxy; readonly skipped?: undefined }
  | { readonly proxy?: undefined; readonly skipped: string };

/** The peer lane when LiteLLM is installed and starts; a reason otherwise (it never fails the bench). */
export async function startLitellmLane(fakeUrls: FakeBaseUrls): Promise<LitellmLane> {
  const found = findLitellm();
  if (!found.available) return { skipped: found.reason };
  try {
    return { proxy: await startLitellmProxy({ fakeUrls, executable: found.executable }) };
  } catch (error) {
    return { skipped: `litellm did not start: ${(error as Error).message.split('\n')[0]}` };
  }
}

/** An `openai` SDK client on the proxy, built like the worker's own provider clients (no SDK retries). */
export function createLitellmClient(endpoint: LitellmEndpoint): OpenAI {
  return new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, maxRetries: 0, timeout: 30_000 });
}

const message = BENCH_REQUEST.messages[0]!;
if (typeof message.content !== 'string') throw new Error('the bench request is plain text');
const prompt = message.content;

/** One bench request through the proxy on `mode`'s deployment; resolves to the answer's text. */
export function litellmCaller(client: OpenAI, mode: LatencyMode): () => Promise<string> {
  return async () => {
    const completion = await client.chat.completions.create({
      model: LITELLM_MODEL[mode],
      messages: [{ role: 'user', content: prompt }],
      max_completion_tokens: BENCH_REQUEST.maxOutputTokens,
    });
    const text = completion.choices[0]?.message.content;
    if (!text) throw new Error('litellm answered without text');
    return text;
  };
}
