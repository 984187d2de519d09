import type { AppDeps } from '../../app/deps.js';
import { stepBalanceUnavailable, stepDenied, stepUserInputInvalid } from '../../blocks/workflow-steps.js';
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
  switch (state.kind) {
    case 'reading': {
      const { reading } = state;
      if (reading.balance === null) {
        const missing = {
          kind: 'not_reported',
          orderId: reading.sourceOrderId,
          traceId: reading.traceId,
        } as const;
        return {
          kind: 'fail',
          error: stepBalanceUnavailable(missing),
          outcome: 'unavailable',
          traceId: reading.traceId,
        };
      }
      return {
        kind: 'complete',
        outcome: 'ok',
        outputs: definedOutputs({
          balance: reading.balance,
          credit_limit: reading.creditLimit,
          // As the Home tab shows it: only when both figures are known.
          available_funds: reading.creditLimit === null ? undefined : reading.balance + reading.creditLimit,
          read_at: timestampOutput(reading.readAt.toISOString()),
        }),
      };
    }
    case 'no_completed_order':
      return { kind: 'fail', error: stepBalanceUnavailable(state), outcome: 'unavailable' };
    case 'not_reported':
      return {
        kind: 'fail',
        error: stepBalanceUnavailable(state),
        outcome: 'unavailable',
        traceId: state.traceId,
      };
    case 'error':
      return {
        kind: 'fail',
        error: stepBalanceUnavailable(state),
        outcome: 'partner_failed',
        traceId: state.error.traceId,
      };
  }
}
