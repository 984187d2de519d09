import type { AppDeps } from '../../app/deps.js';
import { deleteOriginal } from '../../flows/respond.js';
import { instrumented } from '../instrument.js';
import type { ButtonClickArgs } from './click.js';

/** "Hide keys": deletes the ephemeral keys message it sits in (only a response_url can). */
export function hideKeysAction(deps: AppDeps) {
  return ({ ack, respond, action }: ButtonClickArgs) =>
    instrumented(
      deps,
      'action',
      (outcome) => deps.metrics.clicks.inc({ action: action.action_id, outcome }),
      () => ack(),
      async () => ((await deps.tracker.track(deleteOriginal(respond, deps.logger))) ? 'ok' : 'error'),
    );
}
