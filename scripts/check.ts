import { parseArgs } from 'node:util';
import { loadDotEnv } from '../src/config/index.js';
import { runCheck } from './setup-check/run.js';

// `npm run check`: is this deployment's configuration right? See scripts/setup-check/run.ts.

const USAGE = `Usage: npm run check

Reads the settings as Order Desk does (.env and the environment, which wins), asks the partner and
Slack a few read-only questions and prints one line per finding: ok, decide (a default to confirm),
fix (Order Desk will not work as configured) or skip (not checked, because a check it needs failed).
Exits 1 when something must be fixed. It changes nothing. See docs/operations.md, "Check the setup".
`;

/** --help prints the usage; any other argument is refused rather than ignored. */
function wantsHelp(): boolean | 'refused' {
  try {
    return parseArgs({ options: { help: { type: 'boolean', short: 'h' } } }).values.help === true;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}: npm run check takes no options but --help.\n`);
    return 'refused';
  }
}

const help = wantsHelp();
if (help === 'refused') process.exitCode = 1;
else if (help) process.stdout.write(USAGE);
else {
  loadDotEnv();
  process.exitCode = await runCheck(process.env, (line) => process.stdout.write(`${line}\n`));
}
