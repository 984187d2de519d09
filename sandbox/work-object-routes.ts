import { sharedLinks } from './fake-slack/links.js';
import type { FakeSlack } from './fake-slack/server.js';
import type { SandboxAnswer } from './workflow-steps.js';

// The sandbox's Work Objects, server side: a click on a Work Object preview opens its flexpane for
// the person at the keyboard (Slack's entity_details_requested, with a fresh trigger_id), a click on
// a panel's button reaches the app as Slack sends it (block_actions, container.type entity_detail),
// and the panel closes. What the app put in the panel (entity.presentDetails) comes back with the
// page's state (panelState).

/**
 * POST entity/open, entity/open-link, entity/action, entity/close; undefined for any other route.
 * `orderLinkTemplate` is the app's ORDER_LINK_TEMPLATE: which order a table's link names.
 */
export async function workObjectRoute(
  slack: FakeSlack,
  known: (user: unknown) => user is string,
  method: string,
  route: string,
  body: Record<string, unknown>,
  orderLinkTemplate?: string,
): Promise<SandboxAnswer | undefined> {
  if (method !== 'POST' || !route.startsWith('entity/')) return undefined;
  const { user } = body;
  if (!known(user)) return { status: 400, body: { error: 'Unknown user.' } };
  switch (route) {
    case 'entity/open': {
      const { messageId, url } = body;
      const message = typeof messageId === 'string' ? slack.findMessage(messageId) : undefined;
      if (!message || message.deleted || (message.visibleTo !== undefined && message.visibleTo !== user))
        return { status: 404, body: { error: 'That message is gone.' } };
      const entity = message.entities?.find((e) => e.app_unfurl_url === url || e.url === url);
      if (!entity) return { status: 404, body: { error: 'That message has no such Work Object.' } };
      const sent = await slack.requestEntityDetails({
        user,
        url: entity.app_unfurl_url ?? entity.url,
        externalRefId: entity.external_ref.id,
        channel: message.channel,
        messageTs: message.ts,
      });
      slack.emit('change');
      return { status: 200, body: { status: sent.status, ackMs: sent.ackMs } };
    }
    // A link in a data table's cell: on the app's unfurl domains it opens the order's Work Object
    // (the one the app made for that link if it unfurled it, else the order the link names).
    case 'entity/open-link': {
      const { location, url } = body;
      if (typeof url !== 'string' || sharedLinks(url, slack.unfurlDomains).length === 0)
        return { status: 404, body: { error: 'Order Desk does not unfurl that link.' } };
      const message = typeof location === 'string' ? slack.findMessage(location) : undefined;
      if (location !== 'home' && (!message || message.deleted || (message.visibleTo ?? user) !== user))
        return { status: 404, body: { error: 'That message is gone.' } };
      const made = slack.messages
        .flatMap((m) => m.entities ?? [])
        .find((e) => e.app_unfurl_url === url || e.url === url);
      const externalRefId = made?.external_ref.id ?? idInLink(orderLinkTemplate, url);
      if (!externalRefId) return { status: 404, body: { error: 'That link names no order.' } };
      const sent = await slack.requestEntityDetails({
        user,
        url,
        externalRefId,
        channel: message?.channel,
        messageTs: message?.ts,
      });
      slack.emit('change');
      return { status: 200, body: { status: sent.status, ackMs: sent.ackMs } };
    }
    case 'entity/action': {
      const open = slack.workObjects.panelOpenFor(user);
      const { actionId, value } = body;
      if (!open?.panel || typeof actionId !== 'string')
        return { status: 404, body: { error: 'That panel is closed.' } };
      try {
        const sent = await slack.clickEntityAction({
          user,
          actionId,
          value: typeof value === 'string' && value !== '' ? value : undefined,
          url: open.trigger.url,
          externalRefId: open.trigger.externalRefId,
          triggerId: open.panel.triggerId,
        });
        return { status: 200, body: { status: sent.status, ackMs: sent.ackMs } };
      } catch {
        return { status: 404, body: { error: 'That button is gone.' } };
      }
    }
    case 'entity/close':
      slack.workObjects.open.delete(user);
      slack.emit('change');
      return { status: 200, body: {} };
    default:
      return { status: 404, body: { error: 'No such sandbox endpoint.' } };
  }
}

/** The `{id}` of `template` in `url` ('https://partner.example.com/orders/{id}'), if it is one. */
export function idInLink(template: string | undefined, url: string): string | undefined {
  const [before, after, extra] = (template ?? '').split('{id}');
  if (before === undefined || after === undefined || extra !== undefined || before === '') return undefined;
  if (!url.startsWith(before) || !url.endsWith(after) || url.length <= before.length + after.length)
    return undefined;
  const id = url.slice(before.length, url.length - after.length);
  return /^[\w-]+$/.test(id) ? id : undefined;
}

/** The flexpane `user` has open, for the page: which entity, and what the app put in it (if yet). */
export function panelState(slack: FakeSlack, user: string) {
  const open = slack.workObjects.panelOpenFor(user);
  if (!open) return null;
  const { panel } = open;
  return {
    url: open.trigger.url,
    externalRefId: open.trigger.externalRefId,
    openedAt: open.trigger.issuedAt,
    panel: panel
      ? {
          metadata: panel.metadata ?? null,
          error: panel.error ?? null,
          userAuthRequired: panel.userAuthRequired === true,
          userAuthUrl: panel.userAuthUrl ?? null,
        }
      : null,
  };
}
