import { stepBalanceUnavailable, stepDenied, stepUserInputInvalid } from '../../blocks/workflow-steps.js';
import type { AppDeps } from '../deps.js';
import { definedOutputs, type StepOutcome, timestampOutput, userInput } from './step-outcome.js';

export type BalanceStepDeps = Pick<AppDeps, 'auth' | 'balance'>;

/**
 * The "Account balance" step: balance, credit limit and available funds, only for a person in
 * finance (the Home tab's check). The figures come from the Home tab's own source, so a workflow
 * shares its cached reading; after a failed read a run is a person's question, as a Home tab open is:
 * it asks again once the failure is 30 s old (one read per 30 s across replicas), so a busy workflow
 * adds little during an outage and is answered at once after a recovery. The reading is taken from a
 * keys answer whose keys are dropped at once.
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
        // As the Home tab shows it: only when both figures are known.
        available_funds: reading.creditLimit === null ? undefined : balance + reading.creditLimit,
        read_at: timestampOutput(reading.readAt.toISOString()),
      }),
    };
  }
  // A reading without the balance is said as the partner's answer without it.
  const unavailable =
    state.kind === 'reading'
      ? {
          kind: 'not_reported' as const,
          orderId: state.reading.sourceOrderId,
          traceId: state.reading.traceId,
        }
      : state;
  return {
    kind: 'fail',
    error: stepBalanceUnavailable(unavailable),
    outcome: unavailable.kind === 'error' ? 'partner_failed' : 'unavailable',
    traceId:
      unavailable.kind === 'error'
        ? unavailable.error.traceId
        : unavailable.kind === 'not_reported'
          ? unavailable.traceId
          : undefined,
  };
}
