import type { AppDeps } from '../../app/deps.js';
import { publishHome } from '../../flows/publish-home.js';
import type { ButtonClickArgs } from './click.js';

/** "Refresh" on the Home tab: finance status is checked again, then the balance is read anew. */
export function refreshHomeAction(deps: AppDeps) {
  return async ({ ack, body, client }: ButtonClickArgs) => {
    await ack();
    await deps.tracker.track(
      publishHome(deps, client, body.user.id, { forceBalance: true }).catch((error: unknown) => {
        deps.logger.error({ error: (error as Error).message }, 'home refresh failed');
      }),
    );
  };
}
