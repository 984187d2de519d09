import { type LookupStepDeps, runLookupOrderStep } from '../../flows/steps/lookup-order.js';
import { type FunctionListenerDeps, functionListener } from './function-listener.js';

export const LOOKUP_ORDER = 'lookup_order';

/** Workflow Builder's "Look up an order" step (manifest.yml `functions.lookup_order`). */
export function lookupOrderStep(deps: LookupStepDeps & FunctionListenerDeps) {
  return functionListener(deps, LOOKUP_ORDER, (inputs) => runLookupOrderStep(deps, inputs));
}
