import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';

export type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** A submitted modal read by field name, and its answer with errors under the fields (the modal stays open). */
export function submittedForm<Name extends string>(
  { ack, view }: Pick<ViewArgs, 'ack' | 'view'>,
  fields: Record<Name, { block: string; action: string }>,
) {
  return {
    field: (name: Name) => view.state.values[fields[name].block]?.[fields[name].action],
    errors: (messages: Partial<Record<Name, string>>) =>
      ack({
        response_action: 'errors',
        errors: Object.fromEntries(
          (Object.entries(messages) as [Name, string][]).map(([name, message]) => [
            fields[name].block,
            message,
          ]),
        ),
      }),
  };
}
