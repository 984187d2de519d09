import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { answerOrderSearch } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import { replyUnexpected } from '../unexpected.js';

/** `/order <id-or-reference>`: acks at once, then answers ephemerally through the response_url. */
export function orderCommand(deps: AppDeps) {
  return async ({ command, ack, respond }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    await deps.tracker.track(
      (async () => {
        try {
          const message = await answerOrderSearch(deps, command.text ?? '');
          await reply(respond, message, 'new_ephemeral', deps.logger);
        } catch (error) {
          await replyUnexpected(deps, respond, error, '/order');
        }
      })(),
    );
  };
}
