import { randomBytes } from 'node:crypto';
import { viewErrors } from './block-kit.js';
import { findButton } from './buttons.js';
import type { DataBlockSurface } from './data-blocks.js';
import { type FunctionExecution, functionExecutedEvent } from './functions.js';
import { sharedLinks } from './links.js';
import { BOT, directChannelOf, type FakeMessage } from './model.js';
import {
  appHomeOpenedEvent,
  type ChannelRef,
  commandForm,
  eventEnvelope,
  homeClickPayload,
  linkSharedEvent,
  messageClickPayload,
  messageShortcutPayload,
  type UserRef,
  userRef,
  viewSubmissionPayload,
} from './payloads.js';
import { signedHeaders } from './signing.js';
import type { SlackState } from './state.js';
import { type EntityRef, entityActionPayload, entityDetailsRequestedEvent } from './work-object-payloads.js';

// The Slack client's side: what a person does in Slack, sent to the app as Slack sends it (signed,
// with a fresh response_url and trigger_id): slash commands, button clicks in messages and on the
// Home tab, message shortcuts, modal submissions, messages with links (link_shared) or in a DM with
// Order Desk (message.im), the app_home_opened event, and a workflow reaching one of the app's steps
// (function_executed). Each resolves at the app's HTTP answer, which is Slack's ack.

export interface SendResult {
  status: number;
  /** Time to the app's HTTP answer: Slack's 3-second ack window. */
  ackMs: number;
  body: string;
  responseUrlId?: string | undefined;
}

/** `signingSecret: null` sends the request unsigned; `timestamp` signs it as of another time. */
export interface Signing {
  signingSecret?: string | null | undefined;
  timestamp?: number | undefined;
}

export interface CommandInput extends Signing {
  user: string;
  channel: string;
  command: string;
  text: string;
}

export interface ClickInput extends Signing {
  user: string;
  messageId: string;
  actionId: string;
  value?: string | undefined;
}

/** A block_actions payload with any value: for tests of tampered or stale buttons. */
export interface BlockActionInput extends Signing {
  user: string;
  message: FakeMessage;
  actionId: string;
  value: string | undefined;
  blockId?: string | undefined;
  /** An option chosen in a menu (static_select) instead of a button clicked. */
  menu?: { text: string } | undefined;
}

export interface MessageShortcutInput {
  user: string;
  channel: string;
  callbackId: string;
  messageText: string;
  threadTs?: string | undefined;
  /** The message's own ts and author, when it is a message in the fake workspace (the sandbox). */
  messageTs?: string | undefined;
  author?: string | undefined;
}

/** view.state.values of a submission: block_id → action_id → the element's state. */
export interface ViewSubmissionInput {
  user: string;
  values: Record<string, Record<string, Record<string, unknown>>>;
}

export interface ViewSubmissionResult {
  status: number;
  body: Record<string, unknown> | undefined;
}

/** A person's message; links in it on the app's unfurl domains send link_shared. */
export interface PostMessageInput extends Signing {
  user: string;
  channel: string;
  /** Links as Slack writes them (`<https://…>`, `<https://…|label>`) or bare. */
  text: string;
  threadTs?: string | undefined;
}

export interface PostedMessage {
  message: FakeMessage;
  /** The link_shared event sent for it; undefined when no link is on the app's unfurl domains. */
  linkShared?: (SendResult & { eventId: string }) | undefined;
  /** The message event sent for it (message.im): a person's message in their DM with Order Desk. */
  directMessage?: (SendResult & { eventId: string }) | undefined;
}

/** Redelivery of an event Slack got no ack for: the same event_id, with x-slack-retry-num. */
export interface Redelivery {
  eventId: string;
  retryNum: number;
}

/** A workflow reaching one of the app's steps, with the inputs the workflow gives it. */
export interface FunctionRunInput extends Signing {
  callbackId: string;
  inputs: Record<string, unknown>;
  /** Sends the event of an earlier run again (same event_id and run), as Slack retries it. */
  redelivery?: (Redelivery & { functionExecutionId: string }) | undefined;
}

export interface FunctionRunResult extends SendResult {
  functionExecutionId: string;
  eventId: string;
}

/** Someone opens (or refreshes) a Work Object's flexpane: entity_details_requested. */
export interface EntityDetailsInput extends Signing {
  user: string;
  /** The entity's URL, or the link as posted (its app_unfurl_url). */
  url: string;
  externalRefId: string;
  /** The message the Work Object is in (absent: opened from elsewhere, as from Enterprise Search). */
  channel?: string | undefined;
  messageTs?: string | undefined;
}

export interface EntityDetailsResult extends SendResult {
  /** The trigger_id the event carries: entity.presentDetails must use it, once, within 3 s. */
  triggerId: string;
  eventId: string;
}

/** A click on a button in a flexpane: block_actions with container.type "entity_detail". */
export interface EntityActionInput extends Signing {
  user: string;
  actionId: string;
  value?: string | undefined;
  url: string;
  externalRefId: string;
  /**
   * The trigger_id of the panel the button is in (from requestEntityDetails): the click then carries
   * that panel's message, and throws when the app put no such button in it.
   */
  triggerId?: string | undefined;
}

const FORM = 'application/x-www-form-urlencoded';

export class SlackClientDriver {
  /** Every event body sent, by event_id, so a redelivery sends exactly the same one. */
  private readonly sentEvents = new Map<string, string>();

  constructor(private readonly slack: SlackState) {}

  /**
   * Slack without tables and charts: from now on, the workspace `teamId` (default: the app's) refuses
   * `data_table` and `data_visualization` blocks on `surface` ('messages': chat.*, response_urls and
   * unfurls; 'views': views.* and response_action views), as a workspace without them would:
   * `invalid_blocks` (`invalid_arguments` for a view) with "unsupported type: data_table
   * [json-pointer:/blocks/2]". `refused: false` takes them again.
   */
  setDataBlocksRefused(surface: DataBlockSurface, refused: boolean, teamId: string = BOT.teamId): void {
    const surfaces = this.slack.dataBlocksRefused.get(teamId) ?? new Set<DataBlockSurface>();
    if (refused) surfaces.add(surface);
    else surfaces.delete(surface);
    this.slack.dataBlocksRefused.set(teamId, surfaces);
    this.slack.emit('change');
  }

  /** The surfaces on which the workspace `teamId` (default: the app's) refuses tables and charts. */
  dataBlocksRefusedOn(teamId: string = BOT.teamId): DataBlockSurface[] {
    return [...(this.slack.dataBlocksRefused.get(teamId) ?? [])].sort();
  }

  /** Also shows the command in the channel to its author, as Slack does. */
  async runCommand(input: CommandInput): Promise<SendResult> {
    const responseUrlId = this.slack.createResponseUrl({ channel: input.channel, user: input.user });
    this.slack.addMessage({
      channel: input.channel,
      visibleTo: input.user,
      text: `${input.command} ${input.text}`.trim(),
      blocks: [],
      via: 'command',
      author: input.user,
    });
    const form = commandForm({
      ...input,
      user: this.user(input.user),
      channel: this.channel(input.channel),
      responseUrl: this.responseUrl(responseUrlId),
      triggerId: this.slack.newTrigger(input.user, input.channel),
    });
    return { ...(await this.send(form, FORM, input)), responseUrlId };
  }

  /** Clicks a button a message shows; throws when the message has no such button. */
  async click(input: ClickInput): Promise<SendResult> {
    const message = this.slack.findMessage(input.messageId);
    if (!message) throw new Error(`no message ${input.messageId}`);
    const button = findButton(message.blocks, input.actionId, input.value);
    if (!button) throw new Error(`no button ${input.actionId} in message ${input.messageId}`);
    return this.sendBlockAction({
      ...input,
      message,
      value: button.value,
      blockId: button.blockId,
      menu: button.menu,
    });
  }

  async sendBlockAction(input: BlockActionInput): Promise<SendResult> {
    const { message } = input;
    const responseUrlId = this.slack.createResponseUrl({
      channel: message.channel,
      user: input.user,
      originalMessageId: message.id,
    });
    const payload = messageClickPayload({
      ...input,
      user: this.user(input.user),
      channel: this.channel(message.channel),
      blockId: input.blockId ?? 'block',
      triggerId: this.slack.newTrigger(input.user, message.channel),
      responseUrl: this.responseUrl(responseUrlId),
    });
    return { ...(await this.sendPayload(payload, input)), responseUrlId };
  }

  async runMessageShortcut(input: MessageShortcutInput): Promise<SendResult> {
    const responseUrlId = this.slack.createResponseUrl({ channel: input.channel, user: input.user });
    const payload = messageShortcutPayload({
      ...input,
      user: this.user(input.user),
      channel: this.channel(input.channel),
      messageTs: input.messageTs ?? `${Math.floor(Date.now() / 1000)}.000${this.slack.nextSequence()}`,
      author: input.author ?? 'U0CUSTOMER',
      threadTs: input.threadTs,
      triggerId: this.slack.newTrigger(input.user, input.channel),
      responseUrl: this.responseUrl(responseUrlId),
    });
    return { ...(await this.sendPayload(payload)), responseUrlId };
  }

  async clickHome(input: { user: string; actionId: string }): Promise<SendResult> {
    const view = this.slack.views.get(input.user) as { blocks?: unknown[] } | undefined;
    const button = findButton(view?.blocks ?? [], input.actionId);
    if (!button) throw new Error(`no button ${input.actionId} on ${input.user}'s home`);
    const triggerId = this.slack.newTrigger(input.user);
    return this.sendPayload(
      homeClickPayload({ user: this.user(input.user), view, actionId: input.actionId, button, triggerId }),
    );
  }

  async openHome(
    user: string,
    tab: 'home' | 'messages' = 'home',
    redelivery?: Redelivery,
  ): Promise<SendResult & { eventId: string }> {
    const eventId = redelivery?.eventId ?? `Ev${randomBytes(6).toString('hex')}`;
    // Opening the Messages tab opens the person's DM with Order Desk.
    const dm = directChannelOf(user);
    if (tab === 'messages' && !this.slack.channels.some((c) => c.id === dm))
      this.slack.channels.push({ id: dm, name: `dm-${user}` });
    const body = JSON.stringify(appHomeOpenedEvent({ user, tab, eventId }));
    const retryHeaders = redelivery
      ? { 'x-slack-retry-num': String(redelivery.retryNum), 'x-slack-retry-reason': 'http_timeout' }
      : undefined;
    return { ...(await this.send(body, 'application/json', {}, retryHeaders)), eventId };
  }

  /** Sends function_executed for a new run of the step (or the same run again: `redelivery`). */
  async runFunction(input: FunctionRunInput): Promise<FunctionRunResult> {
    const functions = this.slack.functions;
    let execution: FunctionExecution | undefined;
    if (input.redelivery) {
      execution = functions.executions.get(input.redelivery.functionExecutionId);
      if (!execution) throw new Error(`no function execution ${input.redelivery.functionExecutionId}`);
    } else {
      execution = functions.start(input.callbackId, input.inputs);
    }
    const definition = functions.definitions[execution.callbackId];
    if (!definition) throw new Error(`no step ${execution.callbackId}`);
    const eventId = input.redelivery?.eventId ?? `Ev${randomBytes(6).toString('hex')}`;
    const body = JSON.stringify(functionExecutedEvent({ eventId, execution, definition }));
    const retryHeaders = input.redelivery
      ? { 'x-slack-retry-num': String(input.redelivery.retryNum), 'x-slack-retry-reason': 'http_timeout' }
      : undefined;
    const sent = await this.send(body, 'application/json', input, retryHeaders);
    return { ...sent, functionExecutionId: execution.id, eventId };
  }

  /**
   * Posts a person's message. When links in it are on the app's unfurl domains, Slack sends the app
   * link_shared (signed, once per message, listing those links), whether or not the bot is in the
   * conversation; the app may then answer with chat.unfurl.
   */
  async postMessage(input: PostMessageInput): Promise<PostedMessage> {
    const links = sharedLinks(input.text, this.slack.unfurlDomains);
    const message = this.slack.addMessage({
      channel: input.channel,
      text: input.text,
      blocks: [],
      via: 'user',
      author: input.user,
      threadTs: input.threadTs,
      ...(links.length > 0 ? { links } : {}),
    });
    const dm = directChannelOf(input.user);
    if (input.channel === dm && !this.slack.channels.some((c) => c.id === dm))
      this.slack.channels.push({ id: dm, name: `dm-${input.user}` });
    const directMessage =
      input.channel === dm
        ? await this.sendMessageEvent(
            {
              user: input.user,
              channel: dm,
              channel_type: 'im',
              text: input.text,
              ts: message.ts,
              ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
            },
            input,
          )
        : undefined;
    if (links.length === 0) return { message, directMessage };
    const channel = this.slack.channels.find((c) => c.id === input.channel);
    message.unfurlId = `${input.channel}.${message.ts}.${randomBytes(32).toString('hex')}`;
    const eventId = `Ev${randomBytes(6).toString('hex')}`;
    const body = JSON.stringify(
      linkSharedEvent({
        eventId,
        user: input.user,
        channel: input.channel,
        messageTs: message.ts,
        threadTs: input.threadTs,
        unfurlId: message.unfurlId,
        source: 'conversations_history',
        links,
        isBotUserMember: channel?.botIsMember !== false,
        isExtSharedChannel: channel?.externallyShared === true,
      }),
    );
    this.sentEvents.set(eventId, body);
    this.slack.emit('change');
    const linkShared = { ...(await this.send(body, 'application/json', input)), eventId };
    return { message, linkShared, directMessage };
  }

  /**
   * A message event as Slack sends it for message.im: a person's message (postMessage sends those),
   * or any other a test needs (the bot's own, an edit, a message elsewhere). Kept for redelivery.
   */
  async sendMessageEvent(
    event: Record<string, unknown>,
    signing: Signing = {},
  ): Promise<SendResult & { eventId: string }> {
    const eventId = `Ev${randomBytes(6).toString('hex')}`;
    const body = JSON.stringify(eventEnvelope(eventId, { type: 'message', event_ts: event.ts, ...event }));
    this.sentEvents.set(eventId, body);
    return { ...(await this.send(body, 'application/json', signing)), eventId };
  }

  /**
   * A person types links into the message composer, not sent yet: Slack sends link_shared with
   * source "composer", channel "COMPOSER" and the unfurl_id as message_ts (the conversation is not
   * known yet). Undefined when no link is on the app's unfurl domains.
   */
  async typeInComposer(input: {
    user: string;
    text: string;
  }): Promise<(SendResult & { eventId: string }) | undefined> {
    const links = sharedLinks(input.text, this.slack.unfurlDomains);
    if (links.length === 0) return undefined;
    const unfurlId = `${input.user}-${randomBytes(16).toString('hex')}`;
    this.slack.composerDrafts.set(unfurlId, { user: input.user, links });
    const eventId = `Ev${randomBytes(6).toString('hex')}`;
    const body = JSON.stringify(
      linkSharedEvent({
        eventId,
        user: input.user,
        channel: 'COMPOSER',
        messageTs: unfurlId,
        unfurlId,
        source: 'composer',
        links,
        isBotUserMember: false,
        isExtSharedChannel: false,
      }),
    );
    this.sentEvents.set(eventId, body);
    return { ...(await this.send(body, 'application/json', {})), eventId };
  }

  /**
   * Opens a Work Object's flexpane as `user`: a fresh trigger_id for it, and a signed
   * entity_details_requested event. With channel and messageTs, the entity the message carries
   * (chat.unfurl or chat.postMessage metadata) gives the event its entity_url, app_unfurl_url and
   * external_ref, as Slack takes them from the stored entity.
   */
  async requestEntityDetails(input: EntityDetailsInput): Promise<EntityDetailsResult> {
    const message =
      input.channel && input.messageTs
        ? this.slack.messages.find((m) => m.channel === input.channel && m.ts === input.messageTs)
        : undefined;
    const entity = message?.entities?.find(
      (e) =>
        e.external_ref.id === input.externalRefId && (e.url === input.url || e.app_unfurl_url === input.url),
    );
    const ref: EntityRef = {
      url: entity?.url ?? input.url,
      externalRef: entity?.external_ref ?? { id: input.externalRefId },
      appUnfurlUrl: entity?.app_unfurl_url ?? (entity ? undefined : input.url),
      channel: input.channel,
      messageTs: input.messageTs,
      threadTs: message?.threadTs,
    };
    const triggerId = this.slack.workObjects.issue({
      user: input.user,
      url: ref.url,
      externalRefId: ref.externalRef.id,
      externalRefType: ref.externalRef.type,
      appUnfurlUrl: ref.appUnfurlUrl,
      channel: ref.channel,
      messageTs: ref.messageTs,
      threadTs: ref.threadTs,
      cause: 'entity_details_requested',
    });
    const trigger = this.slack.workObjects.triggers.get(triggerId);
    if (trigger) this.slack.workObjects.open.set(input.user, { triggerId, trigger });
    const eventId = `Ev${randomBytes(6).toString('hex')}`;
    const body = JSON.stringify(
      entityDetailsRequestedEvent({ ...ref, eventId, user: input.user, triggerId }),
    );
    this.sentEvents.set(eventId, body);
    this.slack.emit('change');
    return { ...(await this.send(body, 'application/json', input)), triggerId, eventId };
  }

  /** Clicks a button in a flexpane as `user`; the payload carries a fresh trigger_id. */
  async clickEntityAction(input: EntityActionInput): Promise<SendResult & { triggerId: string }> {
    const panelTrigger = input.triggerId ? this.slack.workObjects.triggers.get(input.triggerId) : undefined;
    if (input.triggerId && !panelTrigger) throw new Error(`no flexpane trigger ${input.triggerId}`);
    let text = 'button';
    let value = input.value;
    if (input.triggerId) {
      const panel = this.slack.workObjects.panels.get(input.triggerId);
      const button = panelButtons(panel).find(
        (b) => b.action_id === input.actionId && (input.value === undefined || b.value === input.value),
      );
      if (!button) throw new Error(`no button ${input.actionId} in the panel of ${input.triggerId}`);
      text = button.text;
      value = button.value;
    }
    const ref: EntityRef = {
      url: panelTrigger?.url ?? input.url,
      externalRef: {
        id: input.externalRefId,
        ...(panelTrigger?.externalRefType ? { type: panelTrigger.externalRefType } : {}),
      },
      appUnfurlUrl: panelTrigger?.appUnfurlUrl,
      channel: panelTrigger?.channel,
      messageTs: panelTrigger?.messageTs,
      threadTs: panelTrigger?.threadTs,
    };
    const triggerId = this.slack.workObjects.issue({
      user: input.user,
      url: ref.url,
      externalRefId: input.externalRefId,
      externalRefType: ref.externalRef.type,
      appUnfurlUrl: ref.appUnfurlUrl,
      channel: ref.channel,
      messageTs: ref.messageTs,
      threadTs: ref.threadTs,
      cause: 'entity_action',
    });
    const payload = entityActionPayload({
      ...ref,
      user: this.user(input.user),
      actionId: input.actionId,
      value,
      text,
      triggerId,
    });
    return { ...(await this.sendPayload(payload, input)), triggerId };
  }

  /** Sends an event again exactly as first sent, as Slack does when it missed the ack. */
  async redeliverEvent(redelivery: Redelivery): Promise<SendResult> {
    const body = this.sentEvents.get(redelivery.eventId);
    if (!body) throw new Error(`no event ${redelivery.eventId} was sent`);
    return this.send(
      body,
      'application/json',
      {},
      {
        'x-slack-retry-num': String(redelivery.retryNum),
        'x-slack-retry-reason': 'http_timeout',
      },
    );
  }

  /**
   * Submits the user's newest modal and does what the app's answer says, as Slack does: no
   * response_action closes it; `errors` keeps it open (the page shows them); `update` replaces its
   * view (same view ID); `push` opens another on top; `clear` closes them all. An answer Slack would
   * refuse (not 200, or update/push without a view) leaves the modals as they were.
   */
  async submitView(input: ViewSubmissionInput): Promise<ViewSubmissionResult> {
    const open = this.slack.modals.get(input.user) ?? [];
    const modal = open.at(-1);
    if (!modal) throw new Error(`no modal open for ${input.user}`);
    const triggerId = this.slack.newTrigger(input.user, modal.channel);
    const result = await this.sendPayload(
      viewSubmissionPayload({ user: this.user(input.user), modal, values: input.values, triggerId }),
    );
    let body: Record<string, unknown> | undefined;
    try {
      body = result.body ? (JSON.parse(result.body) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    if (result.status === 200) this.applyResponseAction(input.user, body);
    this.slack.emit('change');
    return { status: result.status, body };
  }

  private applyResponseAction(user: string, body: Record<string, unknown> | undefined): void {
    const open = this.slack.modals.get(user) ?? [];
    const modal = open.at(-1);
    if (!modal) return;
    const view = body?.view;
    // A view Slack would refuse (over a Block Kit limit) changes nothing, as a missing one.
    const isView =
      typeof view === 'object' &&
      view !== null &&
      !Array.isArray(view) &&
      viewErrors(view, '/view', this.slack.refusesDataBlocks('views')).length === 0;
    switch (body?.response_action) {
      case undefined:
        this.slack.modals.set(user, open.slice(0, -1));
        return;
      case 'update':
        if (isView)
          this.slack.modals.set(user, [
            ...open.slice(0, -1),
            { ...modal, view: view as Record<string, unknown> },
          ]);
        return;
      case 'push':
        if (isView) this.slack.pushModal(user, view as Record<string, unknown>, modal.channel);
        return;
      case 'clear':
        this.slack.modals.set(user, []);
        return;
      default:
        // 'errors': the modal stays, and shows them.
        return;
    }
  }

  private user(id: string): UserRef {
    const user = this.slack.users.find((u) => u.id === id);
    return userRef(id, user?.name, user?.teamId);
  }

  private channel(id: string): ChannelRef {
    return { id, name: this.slack.channels.find((c) => c.id === id)?.name ?? 'channel' };
  }

  private responseUrl(id: string): string {
    return `${this.slack.url}/response/${id}`;
  }

  /** Interactions arrive as a form with one field, `payload`, holding the JSON. */
  private sendPayload(payload: object, signing: Signing = {}): Promise<SendResult> {
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), FORM, signing);
  }

  private async send(
    body: string,
    contentType: string,
    signing: Signing,
    extraHeaders?: Record<string, string>,
  ): Promise<SendResult> {
    const { appUrl, options } = this.slack;
    if (!appUrl) throw new Error('fake Slack: appUrl is not set');
    const secret = signing.signingSecret === undefined ? options.signingSecret : signing.signingSecret;
    const signed =
      secret === null
        ? { 'content-type': contentType }
        : signedHeaders(secret, body, contentType, signing.timestamp);
    const started = performance.now();
    const response = await fetch(`${appUrl}/slack/events`, {
      method: 'POST',
      headers: { ...signed, ...extraHeaders },
      body,
    });
    const text = await response.text();
    return { status: response.status, ackMs: performance.now() - started, body: text };
  }
}

type PanelButton = { action_id: string; text: string; value?: string; url?: string };

/** The buttons a panel shows: its entity's actions, or its error form's. */
export function panelButtons(
  panel:
    | {
        metadata?: { entity_payload: Record<string, unknown> } | undefined;
        error?: Record<string, unknown> | undefined;
      }
    | undefined,
): PanelButton[] {
  const actions = panel?.metadata?.entity_payload.actions as
    | { primary_actions?: PanelButton[]; overflow_actions?: PanelButton[] }
    | undefined;
  return [
    ...(actions?.primary_actions ?? []),
    ...(actions?.overflow_actions ?? []),
    ...((panel?.error?.actions as PanelButton[] | undefined) ?? []),
  ];
}
