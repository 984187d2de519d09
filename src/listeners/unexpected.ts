import type { RespondFn } from '@slack/bolt';
import { renderNotice } from '../blocks/index.js';
import { reply } from '../flows/respond.js';
import type { ListenerDeps } from './listener-deps.js';

/** A bug must still leave the user with an answer, and the log with the error (never with a key). */
export async function replyUnexpected(
  deps: Pick<ListenerDeps, 'logger'>,
  respond: RespondFn,
  error: unknown,
  where: string,
): Promise<void> {
  const errorId = Math.random().toString(36).slice(2, 10);
  deps.logger.error(
    {
      where,
      errorId,
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    },
    'unexpected error in a listener',
  );
  await reply(
    respond,
    renderNotice(
      ':boom: *Something went wrong in Order Desk.* Please try again; if it keeps happening, give your admin this error ID.',
      `Error ID \`${errorId}\``,
    ),
    'new_ephemeral',
    deps.logger,
  );
}
