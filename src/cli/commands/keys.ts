// `switchyard keys`: make, list and revoke the gateway's keys (only their hashes are stored). Node side.
import type { Command } from '../command';
import { UsageError } from '../cli-errors';
import { ExitCode } from '../exit-codes';
import { nonEmptyFlag, positiveIntegerFlag } from '../flag-values';
import type { FlagTable } from '../flags';
import { GLOBAL_FLAGS, readGlobalOptions } from '../global-options';
import { EXIT_CODES_NOTE, renderHelp } from '../help-text';
import { booleanFlag, parseCommandArguments, stringFlag } from '../parse-arguments';
import { renderTable } from '../text-table';
import { KEYS_FLAG } from './serve';

const KEY_FLAGS = {
  routes: {
    type: 'string',
    valueName: '<name>[,<name>…]',
    description: 'routes the key may call, or "*" for every route (create; required)',
  },
  budget: {
    type: 'string',
    valueName: '<scope>',
    description: 'budget scope its calls are charged to (create)',
  },
  label: { type: 'string', valueName: '<text>', description: 'who holds it, for people (create)' },
  'max-output-tokens': {
    type: 'string',
    valueName: '<n>',
    description: 'the most output tokens one call with the key may ask for; more is refused (create)',
  },
  json: { type: 'boolean', description: 'print JSON (create, list)' },
  ...KEYS_FLAG,
} as const satisfies FlagTable;

const FLAGS = { ...KEY_FLAGS, ...GLOBAL_FLAGS } satisfies FlagTable;

const HELP = renderHelp({
  usage: [
    'switchyard keys create --routes <name>[,<name>…] [--budget <scope>] [--label <text>] [--max-output-tokens <n>]',
    'switchyard keys list [--json]',
    'switchyard keys revoke <id>',
  ],
  description: [
    'Gateway keys let clients call "switchyard serve". "create" prints a new key once, on stdout; only its',
    'SHA-256 is stored, with the routes it may use and the budget scope it charges, in the key file that',
    'every gateway reads (changes reach running gateways within a second). A revoked key is refused.',
    "Changes are made under the file's lock and read back: exit 0 means the change is on file; exit 1 means",
    'it is not (the lock stayed taken, or the file could not be written), and no key is printed.',
  ],
  sections: [
    { title: 'Keys', flags: KEY_FLAGS },
    { title: 'Global', flags: GLOBAL_FLAGS },
  ],
  examples: [
    'switchyard keys create --routes support --budget team-a --label "support bot"',
    'switchyard keys list',
    'switchyard keys revoke 3f9a1c2b44d0',
  ],
  notes: [EXIT_CODES_NOTE],
});

function readRoutes(value: string | undefined, known: readonly string[] | undefined): string[] {
  if (nonEmptyFlag('routes', value) === undefined) {
    throw new UsageError('--routes is required: the routes the key may call, or "*"');
  }
  const routes = value!
    .split(',')
    .map((route) => route.trim())
    .filter(Boolean);
  if (known) {
    const unknown = routes.filter((route) => route !== '*' && !known.includes(route));
    if (unknown.length > 0)
      throw new UsageError(
        `--routes: no route named ${unknown.join(', ')} in the config (routes: ${known.join(', ')})`,
      );
  }
  return routes;
}

export const keysCommand: Command = {
  name: 'keys',
  help: () => HELP,
  async run(argv, io) {
    const parsed = parseCommandArguments(argv, FLAGS, { allowPositionals: true });
    const globals = readGlobalOptions(parsed);
    const [action, ...rest] = parsed.positionals;
    const { KeyStore, KeyFileError, KeyChangeError } =
      require('../../gateway/key-store') as typeof import('../../gateway/key-store');
    const keysFile = nonEmptyFlag('keys', stringFlag(parsed, 'keys'));
    const store = new KeyStore(keysFile !== undefined ? { file: keysFile } : {});
    const json = booleanFlag(parsed, 'json');
    try {
      if (action === 'create') {
        if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
        // Checked against the config when there is one, so a typo is not a key that can never be used.
        const { configPath, loadConfig } =
          require('../../config/load-config') as typeof import('../../config/load-config');
        const { existsSync } = require('node:fs') as typeof import('node:fs');
        const known = existsSync(configPath(globals.configFile))
          ? Object.keys(loadConfig(globals.configFile).routes)
          : undefined;
        const routes = readRoutes(stringFlag(parsed, 'routes'), known);
        const budget = nonEmptyFlag('budget', stringFlag(parsed, 'budget'));
        const label = stringFlag(parsed, 'label');
        const maxOutputTokens = positiveIntegerFlag(
          'max-output-tokens',
          stringFlag(parsed, 'max-output-tokens'),
        );
        const { keyCreationProblem, keyPolicyFromEnvironment } =
          require('../../gateway/key-policy') as typeof import('../../gateway/key-policy');
        const problem = keyCreationProblem(
          budget !== undefined ? { budget } : {},
          keyPolicyFromEnvironment(),
        );
        if (problem) throw new UsageError(problem);
        const { key, stored } = store.create({
          routes,
          ...(budget !== undefined ? { budget } : {}),
          ...(label !== undefined ? { label } : {}),
          ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
        });
        if (json) io.stdout.write(`${JSON.stringify({ key, ...withoutHash(stored) }, null, 2)}\n`);
        else io.stdout.write(`${key}\n`);
        io.stderr.write(
          `key ${stored.id} for ${routes.join(', ')}${budget ? `, charging ${budget}` : ''}; stored hashed in ${store.file} and read back.\n` +
            'This is the only time the key is shown.\n',
        );
        return ExitCode.ok;
      }
      if (action === 'list') {
        const keys = store.list().map(withoutHash);
        if (json) io.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
        else if (keys.length === 0) io.stdout.write(`no keys in ${store.file}\n`);
        else
          io.stdout.write(
            renderTable(
              ['id', 'routes', 'budget', 'label', 'created', 'revoked'].map((header) => ({ header })),
              keys.map((key) => [
                key.id,
                key.routes.join(','),
                key.budget ?? '-',
                key.label ?? '',
                key.createdAt,
                key.revokedAt ?? '',
              ]),
            ),
          );
        return ExitCode.ok;
      }
      if (action === 'revoke') {
        const [id, ...extra] = rest;
        if (id === undefined || extra.length > 0) throw new UsageError('keys revoke takes one key id');
        if (!store.revoke(id)) throw new UsageError(`no key with id "${id}" in ${store.file}`);
        io.stderr.write(`key ${id} revoked; gateways refuse it within a second\n`);
        return ExitCode.ok;
      }
      throw new UsageError(
        action === undefined
          ? 'name an action: create, list or revoke'
          : `unknown action "${action}" (create, list, revoke)`,
      );
    } catch (error) {
      if (error instanceof KeyFileError) throw new UsageError(error.message);
      // Locked too long, not written, or not there when read back: a failure, never a claimed success.
      if (error instanceof KeyChangeError) {
        io.stderr.write(`switchyard keys: ${error.message}\n`);
        return ExitCode.callFailed;
      }
      throw error;
    }
  },
};

function withoutHash<Key extends { sha256: string }>(key: Key): Omit<Key, 'sha256'> {
  const { sha256: _sha256, ...rest } = key;
  return rest;
}
