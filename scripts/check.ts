import { loadDotEnv } from '../src/config/index.js';
import { runCheck } from './setup-check/run.js';

// `npm run check`: is this deployment's configuration right? See scripts/setup-check/run.ts.
loadDotEnv();
process.exitCode = await runCheck(process.env, (line) => process.stdout.write(`${line}\n`));
