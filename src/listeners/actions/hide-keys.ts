import type { AppDeps } from '../../app/deps.js';
import { deleteOriginal } from '../../flows/respond.js';
import type { ButtonClickArgs } from './click.js';

/** "Hide keys": deletes the ephemeral keys message it sits in (only a response_url can). */
export function hideKeysAction(deps: AppDeps) {
  return async ({ ack, respond }: ButtonClickArgs) => {
    await ack();
    await deps.tracker.track(deleteOriginal(respond, deps.logger));
  };
}
