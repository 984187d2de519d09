// The `/order-subscribe` modal's answers, as a test submits them.

export interface Form {
  channel: string;
  events: Array<'new_orders' | 'status_changes'>;
  statuses?: string[];
  minAmount?: string;
  title?: string;
}

/** The subscription modal's state.values, as Slack sends them for these choices. */
export function values(form: Form) {
  const options = (list: string[]) =>
    list.map((value) => ({ text: { type: 'plain_text', text: value }, value }));
  return {
    subscribe_channel: { channel: { type: 'conversations_select', selected_conversation: form.channel } },
    subscribe_events: { events: { type: 'checkboxes', selected_options: options(form.events) } },
    subscribe_statuses: {
      statuses: { type: 'multi_static_select', selected_options: options(form.statuses ?? []) },
    },
    subscribe_min_amount: { min_amount: { type: 'number_input', value: form.minAmount ?? null } },
    subscribe_title: { title: { type: 'plain_text_input', value: form.title ?? null } },
  };
}
