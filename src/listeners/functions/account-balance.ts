import { type BalanceStepDeps, runAccountBalanceStep } from '../../flows/steps/account-balance.js';
import { type FunctionListenerDeps, functionListener } from './function-listener.js';

export const ACCOUNT_BALANCE = 'account_balance';

/** Workflow Builder's "Account balance" step (manifest.yml `functions.account_balance`), finance only. */
export function accountBalanceStep(deps: BalanceStepDeps & FunctionListenerDeps) {
  return functionListener(deps, ACCOUNT_BALANCE, (inputs) => runAccountBalanceStep(deps, inputs));
}
