import {
  stepDenied,
  stepLookupFailed,
  stepOrderInputEmpty,
  stepOrderInputNumber,
  stepSeveralOrders,
  stepUserInputInvalid,
} from '../../blocks/workflow-steps.js';
import { faultOf, type OrderSummary } from '../../partner-api/index.js';
import type { AppDeps } from '../deps.js';
import { findOrder, standsInForPartner } from '../find-order.js';
import type { LookupDeps } from '../lookup-order.js';
import {
  definedOutputs,
  orderInput,
  type StepOutcome,
  type StepOutputs,
  timestampOutput,
  userInput,
} from './step-outcome.js';

export type LookupStepDeps = LookupDeps & Pick<AppDeps, 'auth'>;

/**
 * The "Look up an order" step: one order by its exact ID or reference, for a person who may use `/order`.
 * No order is a normal answer (found = false), not a failure. The outputs are its summary: never keys.
 */
export async function runLookupOrderStep(
  deps: LookupStepDeps,
  inputs: Record<string, unknown>,
): Promise<StepOutcome> {
  const userId = userInput(inputs.user);
  if (!userId) return { kind: 'fail', error: stepUserInputInvalid('lookup_order'), outcome: 'bad_input' };
  const query = orderInput(inputs.order);
  if (query === 'unreadable') return { kind: 'fail', error: stepOrderInputNumber(), outcome: 'bad_input' };
  if (!query) return { kind: 'fail', error: stepOrderInputEmpty(), outcome: 'bad_input' };
  // Guests and other organisations' users get no order data, exactly as with /order.
  const access = await deps.auth.canUseOrders(userId);
  if (!access.allowed)
    return { kind: 'fail', error: stepDenied('lookup_order', access.reason, userId), outcome: 'refused' };

  const found = await findOrder(deps, query, { where: 'workflow step lookup_order', userId });
  switch (found.kind) {
    case 'one':
      return {
        kind: 'complete',
        outputs: orderOutputs(found.order, standsInForPartner(found.source)),
        outcome: 'ok',
      };
    case 'none':
      return { kind: 'complete', outputs: { found: false }, outcome: 'not_found' };
    case 'several':
      return {
        kind: 'fail',
        error: stepSeveralOrders(
          query,
          found.orders.map((order) => order.id),
          found.traceId,
        ),
        outcome: 'bad_input',
        traceId: found.traceId,
      };
    case 'failed':
      return {
        kind: 'fail',
        error: stepLookupFailed(query, found.error),
        // Refused before any request (too long): the input's fault, not the partner's.
        outcome: faultOf(found.error) === 'user' ? 'bad_input' : 'partner_failed',
        traceId: found.error.traceId,
      };
  }
}

/** The order's summary fields, named as the manifest's output_parameters. */
function orderOutputs(order: OrderSummary, fromCopy: boolean): StepOutputs {
  return definedOutputs({
    found: true,
    order_id: order.id,
    reference: order.referenceId,
    status: order.status,
    product_title: order.item.title,
    quantity: order.item.quantity,
    amount: order.item.amount,
    created_at: timestampOutput(order.createdAt),
    from_copy: fromCopy,
  });
}
