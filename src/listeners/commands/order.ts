import type { AppDeps } from '../../app/deps.js';
import { answerOrderSearch } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import { commandListener } from './command-listener.js';

/** `/order <id-or-reference>`: answered ephemerally through the response_url. */
export function orderCommand(deps: AppDeps) {
  return commandListener(deps, '/order', async ({ command, respond }) => {
    const message = await answerOrderSearch(deps, command.text ?? '', {
      where: '/order',
      userId: command.user_id,
    });
    await reply(respond, message, 'new_ephemeral', deps.logger);
  });
}
