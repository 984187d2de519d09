import { refusedAnswer, viewErrors } from './block-kit.js';
import { parseJsonArg, type WebApiFamily } from './web-api.js';

// views.*: a user's Home tab (views.publish replaces it whole) and modals (views.open needs a
// trigger_id from the user's own interaction, used once; the modal stacks on any already open, and
// remembers the conversation the interaction came from, for default_to_current_conversation).

export const viewsMethods: WebApiFamily = {
  'views.publish': (args, slack) => {
    const userId = String(args.user_id ?? '');
    const view = parseJsonArg(args.view);
    if (!userId || !view) return { ok: false, error: 'invalid_arguments' };
    // A view over a Block Kit limit is refused whole, as Slack does.
    const errors = viewErrors(view, '/view', slack.refusesDataBlocks('views'));
    if (errors.length > 0) return refusedAnswer('invalid_arguments', errors);
    slack.views.set(userId, view);
    return { ok: true, view: { id: `V${userId}`, ...(view as object) } };
  },

  'views.open': (args, slack) => {
    const view = parseJsonArg(args.view) as Record<string, unknown> | undefined;
    if (!view) return { ok: false, error: 'invalid_trigger_id' };
    const errors = viewErrors(view, '/view', slack.refusesDataBlocks('views'));
    if (errors.length > 0) return refusedAnswer('invalid_arguments', errors);
    // A click in a Work Object's flexpane may open a modal too (its trigger is work-objects.ts').
    const trigger =
      slack.takeTrigger(String(args.trigger_id ?? '')) ??
      slack.workObjects.takeForModal(String(args.trigger_id ?? ''));
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    const { id } = slack.pushModal(trigger.user, view, trigger.channel);
    return { ok: true, view: { id, ...view } };
  },
};
