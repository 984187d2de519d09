import { deleteOriginal } from '../../flows/respond.js';
import { counted, type ListenerDeps } from '../frame.js';
import type { ButtonClickArgs } from './click.js';

/** "Hide keys": deletes the ephemeral keys message it sits in (only a response_url can). */
export function hideKeysAction(deps: ListenerDeps) {
  return counted<ButtonClickArgs>(async ({ respond }) =>
    (await deleteOriginal(respond, deps.logger)) ? 'ok' : 'error',
  );
}
