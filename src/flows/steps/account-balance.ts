import {
  stepBalanceMissing,
  stepBalanceUnavailable,
  stepDenied,
  stepUserInputInvalid,
} from '../../blocks/workflow-steps.js';
import type { AppDeps } from '../deps.js';
import { definedOutputs, type StepOutcome, timestampOutput, userInput } from './step-outcome.js';

export type BalanceStepDeps = Pick<AppDeps, 'auth' | 'balance' | 'currency'>;

/**
 * The "Account balance" step, only for finance: the Home tab's cached reading. After a failed read a run
 * asks again as a Home tab open does (once the failure is 30 s old): a busy workflow adds little then.
 */
export async function runAccountBalanceStep(
  deps: BalanceStepDeps,
  inputs: Record<string, unknown>,
): Promise<StepOutcome> {
  const userId = userInput(inputs.user);
  if (!userId) return { kind: 'fail', error: stepUserInputInvalid('account_balance'), outcome: 'bad_input' };
  const finance = await deps.auth.isFinance(userId);
  if (!finance.allowed)
    return { kind: 'fail', error: stepDenied('account_balance', finance.reason, userId), outcome: 'refused' };

  const state = await deps.balance.current();
  if (state.kind === 'reading' && state.reading.balance !== null) {
    const { reading } = state;
    const balance = state.reading.balance;
    return {
      kind: 'complete',
      outcome: 'ok',
      outputs: definedOutputs({
        balance,
        credit_limit: reading.creditLimit,
        // Only when both figures are known: a workflow has no place for the words that say otherwise.
        available_funds: reading.creditLimit === null ? undefined : balance + reading.creditLimit,
        read_at: timestampOutput(reading.readAt.toISOString()),
      }),
    };
  }
  // No balance in the reading: the step's balance output is required, so it fails, saying what was sent.
  if (state.kind === 'reading')
    return {
      kind: 'fail',
      error: stepBalanceMissing(state.reading, deps.currency),
      outcome: 'unavailable',
      traceId: state.reading.traceId,
    };
  return {
    kind: 'fail',
    error: stepBalanceUnavailable(state),
    outcome: state.kind === 'error' ? 'partner_failed' : 'unavailable',
    traceId:
      state.kind === 'error'
        ? state.error.traceId
        : state.kind === 'not_reported'
          ? state.traceId
          : undefined,
  };
}
