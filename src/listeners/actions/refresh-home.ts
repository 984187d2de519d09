import type { AppDeps } from '../../app/deps.js';
import { publishHome } from '../../flows/publish-home.js';
import { instrumented } from '../instrument.js';
import type { ButtonClickArgs } from './click.js';

/** "Refresh" on the Home tab: finance status is checked again, then the balance is read anew. */
export function refreshHomeAction(deps: AppDeps) {
  return ({ ack, body, client, action }: ButtonClickArgs) =>
    instrumented(
      deps,
      'action',
      (outcome) => deps.metrics.clicks.inc({ action: action.action_id, outcome }),
      () => ack(),
      () =>
        deps.tracker.track(
          publishHome(deps, client, body.user.id, { forceBalance: true }).then(
            () => 'ok',
            (error: unknown) => {
              deps.logger.error({ error: (error as Error).message }, 'home refresh failed');
              return 'error';
            },
          ),
        ),
    );
}
