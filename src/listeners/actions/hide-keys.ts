import { deleteOriginal } from '../../flows/respond.js';
import type { ListenerDeps } from '../listener-deps.js';
import { simpleClick } from './simple-click.js';

/** "Hide keys": deletes the ephemeral keys message it sits in (only a response_url can). */
export function hideKeysAction(deps: ListenerDeps) {
  return simpleClick(deps, async ({ respond }) =>
    (await deleteOriginal(respond, deps.logger)) ? 'ok' : 'error',
  );
}
