import { instrumented } from '../instrument.js';
import type { ListenerDeps } from '../listener-deps.js';
import type { ButtonClickArgs } from './click.js';

/**
 * The frame of a click that carries no state to parse: ack at once, then the work (tracked, so a
 * graceful stop waits for it), counted in the metrics with the outcome the work returns. `label`
 * replaces the action ID in the metric when IDs vary (one per image key).
 */
export function simpleClick(
  deps: Pick<ListenerDeps, 'metrics' | 'tracker'>,
  work: (args: ButtonClickArgs) => Promise<string>,
  label?: string,
) {
  return (args: ButtonClickArgs) =>
    instrumented(
      deps,
      'action',
      (outcome) => deps.metrics.clicks.inc({ action: label ?? args.action.action_id, outcome }),
      () => args.ack(),
      () => deps.tracker.track(work(args)),
    );
}
