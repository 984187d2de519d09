import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { instrumented } from '../instrument.js';
import type { ListenerDeps } from '../listener-deps.js';
import { replyUnexpected } from '../unexpected.js';

export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/**
 * The common frame of a slash command: ack at once (Slack waits 3 s, the partner API may take
 * longer), then do the work, tracked so a graceful stop waits for it, and answer every failure.
 */
export function commandListener(
  deps: Pick<ListenerDeps, 'logger' | 'metrics' | 'tracker'>,
  where: string,
  work: (args: CommandArgs) => Promise<void>,
) {
  return (args: CommandArgs) =>
    instrumented(
      deps,
      'command',
      (outcome) => deps.metrics.commands.inc({ command: args.command.command, outcome }),
      () => args.ack(),
      () =>
        deps.tracker.track(
          (async () => {
            try {
              await work(args);
              return 'ok';
            } catch (error) {
              await replyUnexpected(deps, args.respond, error, where);
              return 'error';
            }
          })(),
        ),
    );
}
