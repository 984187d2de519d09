import { type HomeDeps, publishHome } from '../../flows/publish-home.js';
import { counted } from '../frame.js';
import type { ButtonClickArgs } from './click.js';

/** "Refresh" on the Home tab: finance status is checked again, then the balance is read anew. */
export function refreshHomeAction(deps: HomeDeps) {
  return counted<ButtonClickArgs>(({ body, client }) =>
    publishHome(deps, client, body.user.id, { forceBalance: true }).then(
      () => 'ok',
      (error: unknown) => {
        deps.logger.error({ error: (error as Error).message }, 'home refresh failed');
        return 'error';
      },
    ),
  );
}
