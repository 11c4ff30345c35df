// The committed workflow histories the replay test replays: where they live, their index, reading and checking them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { History } from '@temporalio/common/lib/proto-utils';

/** Folder of the recorded histories, one `<name>.json` each, plus {@link FIXTURE_INDEX_FILE}. */
export const FIXTURE_DIRECTORY = path.resolve(__dirname, '../fixtures/histories');
/** The sidecar naming each history's workflow: `index.json` in {@link FIXTURE_DIRECTORY}. */
export const FIXTURE_INDEX_FILE = 'index.json';

/** One recorded history, as `index.json` lists it. */
export interface HistoryFixture {
  /** File stem: the history is `<name>.json`. */
  readonly name: string;
  /** What path of the workflow the history walks, for a person reading a failure. */
  readonly scenario: string;
  readonly workflowType: string;
  readonly workflowId: string;
  /** Events in the history. */
  readonly events: number;
}

export interface HistoryFixtureIndex {
  /** How to make them again: the command that wrote this file. */
  readonly recordedBy: string;
  /** `@temporalio/worker` version of the recording worker. */
  readonly sdkVersion: string;
  readonly histories: readonly HistoryFixture[];
}

export function fixturePath(name: string): string {
  return path.join(FIXTURE_DIRECTORY, `${name}.json`);
}

export function readFixtureIndex(): HistoryFixtureIndex {
  return JSON.parse(
    readFileSync(path.join(FIXTURE_DIRECTORY, FIXTURE_INDEX_FILE), 'utf8'),
  ) as HistoryFixtureIndex;
}

/** The protobufjs ProtoJSON functions this file uses, and the reflected type they work on. */
interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): History | null;
}

/** The reflected `temporal.api.history.v1.History` type. */
interface HistoryType {
  fromObject(history: History): unknown;
}

/**
 * The history message type and ProtoJSON functions of one protobufjs copy. The SDK's `historyToJSON` and
 * `historyFromJSON` (@temporalio/common/lib/proto-utils) throw "type must be a Type" in this install:
 * @temporalio/common and @temporalio/proto each get their own nested protobufjs 8 (the top-level one is 7.x,
 * for gRPC), and ProtoJSON rejects a type made by the other copy. Taking ProtoJSON from the copy that
 * @temporalio/proto itself loads gives the same canonical JSON those functions write and read.
 */
function historyCodec(): { type: HistoryType; protoJson: ProtoJson } {
  const root = require('@temporalio/proto') as { lookupType(name: string): HistoryType };
  const protoDirectory = path.dirname(require.resolve('@temporalio/proto/package.json'));
  const protoJson = require(
    require.resolve('protobufjs/ext/protojson', { paths: [protoDirectory] }),
  ) as ProtoJson;
  return { type: root.lookupType('temporal.api.history.v1.History'), protoJson };
}

/** A fetched history as ProtoJSON text (the format of `historyToJSON` and `temporal workflow show -o json`). */
export function historyToFixtureJson(history: History): string {
  const { type, protoJson } = historyCodec();
  return JSON.stringify(protoJson.toJson(type, type.fromObject(history)), null, 2);
}

/** A history read back from {@link historyToFixtureJson}'s text; unknown fields (a newer server's) are ignored. */
export function historyFromFixtureJson(json: string): History {
  const { type, protoJson } = historyCodec();
  const history = protoJson.fromJson(type, JSON.parse(json), { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a workflow history');
  return history;
}

export function loadFixtureHistory(fixture: HistoryFixture): History {
  return historyFromFixtureJson(readFileSync(fixturePath(fixture.name), 'utf8'));
}

/**
 * Which of `secrets` occur in a history's JSON text, either as written or inside a payload: payload bytes (and
 * metadata) are base64 in history JSON, so every string in it is also decoded as base64 and searched.
 */
export function secretsIn(historyJson: string, secrets: readonly string[]): string[] {
  const texts = [historyJson];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === 'object') {
      Object.values(value).forEach(collect);
    } else if (typeof value === 'string') {
      texts.push(Buffer.from(value, 'base64').toString('utf8'));
    }
  };
  collect(JSON.parse(historyJson));
  return secrets.filter((secret) => texts.some((text) => text.includes(secret)));
}
