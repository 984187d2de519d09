import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { runAccountBalanceStep } from '../../flows/steps/account-balance.js';
import { runLookupOrderStep } from '../../flows/steps/lookup-order.js';
import { functionListener } from './function-listener.js';

/**
 * Workflow Builder steps: each is a function in manifest.yml (`functions.<callback ID>`), and arrives
 * as function_executed. "Look up an order"; "Account balance", finance only.
 */
export const FUNCTIONS = ['lookup_order', 'account_balance'] as const;

export function registerFunctions(app: App, deps: AppDeps): void {
  // autoAcknowledge off: the frame (frame.ts) acks first thing, timed like every other listener's.
  app.function(
    'lookup_order',
    { autoAcknowledge: false },
    functionListener(deps, 'lookup_order', (inputs) => runLookupOrderStep(deps, inputs)),
  );
  app.function(
    'account_balance',
    { autoAcknowledge: false },
    functionListener(deps, 'account_balance', (inputs) => runAccountBalanceStep(deps, inputs)),
  );
}
