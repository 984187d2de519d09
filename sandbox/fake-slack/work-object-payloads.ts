import { BOT } from './model.js';
import { eventEnvelope, type UserRef } from './payloads.js';

// What Slack sends an app for a Work Object's flexpane, as plain functions from data to request
// bodies: the entity_details_requested event (someone opened the panel, or refreshed it) and the
// block_actions payload of a click on a panel's button (container.type "entity_detail"). Shapes as
// in docs.slack.dev/reference/events/entity_details_requested and the "Implementing Work Objects"
// page; the docs show no whole payload of a panel click, so it carries what they name for the
// container (entity_url, external_ref, app_unfurl_url, message_ts, thread_ts, channel_id), no
// response_url and no channel: an app answers it with entity.presentDetails, a DM or a modal.

const nowTs = () => `${Date.now() / 1000}`;

export interface EntityRef {
  url: string;
  externalRef: { id: string; type?: string | undefined };
  appUnfurlUrl?: string | undefined;
  channel?: string | undefined;
  messageTs?: string | undefined;
  threadTs?: string | undefined;
}

export function entityDetailsRequestedEvent(
  input: EntityRef & { eventId: string; user: string; triggerId: string },
) {
  const link = input.appUnfurlUrl ?? input.url;
  return eventEnvelope(input.eventId, {
    type: 'entity_details_requested',
    user: input.user,
    external_ref: input.externalRef,
    entity_url: input.url,
    link: { url: link, domain: hostOf(link) },
    app_unfurl_url: link,
    event_ts: nowTs(),
    trigger_id: input.triggerId,
    user_locale: 'en-US',
    // Left out when the panel is opened outside a message (Enterprise Search), as Slack does.
    ...(input.channel ? { channel: input.channel } : {}),
    ...(input.messageTs ? { message_ts: input.messageTs } : {}),
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
  });
}

export function entityActionPayload(
  input: EntityRef & {
    user: UserRef;
    actionId: string;
    value: string | undefined;
    text: string;
    triggerId: string;
  },
) {
  return {
    type: 'block_actions',
    user: input.user,
    api_app_id: BOT.appId,
    token: 'legacy-verification-token',
    container: {
      type: 'entity_detail',
      entity_url: input.url,
      external_ref: input.externalRef,
      ...(input.appUnfurlUrl ? { app_unfurl_url: input.appUnfurlUrl } : {}),
      ...(input.messageTs ? { message_ts: input.messageTs } : {}),
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      ...(input.channel ? { channel_id: input.channel } : {}),
    },
    trigger_id: input.triggerId,
    team: { id: BOT.teamId, domain: 'sandbox' },
    enterprise: null,
    is_enterprise_install: false,
    state: { values: {} },
    actions: [
      {
        action_id: input.actionId,
        block_id: 'entity_detail',
        text: { type: 'plain_text', text: input.text },
        ...(input.value === undefined ? {} : { value: input.value }),
        type: 'button',
        action_ts: nowTs(),
      },
    ],
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
