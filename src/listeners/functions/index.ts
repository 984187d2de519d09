import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { ACCOUNT_BALANCE, accountBalanceStep } from './account-balance.js';
import { LOOKUP_ORDER, lookupOrderStep } from './lookup-order.js';

/** Workflow Builder steps: each is a function in manifest.yml, and arrives as function_executed. */
export const FUNCTIONS = [LOOKUP_ORDER, ACCOUNT_BALANCE] as const;

export function registerFunctions(app: App, deps: AppDeps): void {
  // autoAcknowledge off: the frame (frame.ts) acks first thing, timed like every other listener's.
  app.function(LOOKUP_ORDER, { autoAcknowledge: false }, lookupOrderStep(deps));
  app.function(ACCOUNT_BALANCE, { autoAcknowledge: false }, accountBalanceStep(deps));
}
