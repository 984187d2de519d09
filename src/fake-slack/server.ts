import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { botInfo, conversationInfo, userInfo } from './directory.js';
import { FakeFiles } from './files.js';
import type {
  FakeChannel,
  FakeMessage,
  FakeUser,
  RecordedCall,
  ResponsePost,
  ResponseTarget,
} from './model.js';
import { signedHeaders } from './signing.js';
import { waitForEvent } from './wait.js';

// A stand-in for Slack on this machine: the Web API the app calls, the response_urls it posts to,
// and the client side that sends the app signed commands, clicks and events. The end-to-end tests
// and the local sandbox both use it, so the sandbox shows what the tests check.

export interface FakeSlackOptions {
  botToken: string;
  signingSecret: string;
  /** Where the app listens for commands, interactions and events (POST /slack/events). */
  appUrl?: string | undefined;
  users?: FakeUser[] | undefined;
  channels?: FakeChannel[] | undefined;
  usergroups?: Record<string, string[]> | undefined;
  port?: number | undefined;
  /** The app-level token (xapp-) Socket Mode authenticates with, when a test uses Socket Mode. */
  appToken?: string | undefined;
  /** Posts one response_url accepts, and for how long (Slack: 5 within 30 minutes). */
  responseUrlLimit?: number | undefined;
  responseUrlTtlMs?: number | undefined;
  /** false: uploaded files keep only their size (benchmarks). */
  keepUploads?: boolean | undefined;
}

export interface MethodFault {
  /** HTTP 429 with Retry-After, as Slack rate-limits. */
  rateLimited?: { retryAfterSeconds: number } | undefined;
  /** An ok:false answer with this error code. */
  error?: string | undefined;
  count: number;
}

export const BOT = {
  botId: 'B0ORDERDESK',
  botUserId: 'U0ORDERDESK',
  teamId: 'T0SANDBOX',
  appId: 'A0ORDERDESK',
} as const;

export interface SendResult {
  status: number;
  /** Time to the app's HTTP answer: Slack's 3-second ack window. */
  ackMs: number;
  body: string;
  responseUrlId?: string | undefined;
}

export class FakeSlack extends EventEmitter {
  readonly calls: RecordedCall[] = [];
  readonly responsePosts: ResponsePost[] = [];
  readonly messages: FakeMessage[] = [];
  readonly views = new Map<string, unknown>();
  /** Modals open per user (views.open), newest last. */
  readonly modals = new Map<string, Array<{ id: string; view: Record<string, unknown> }>>();
  readonly uploads: FakeFiles;
  readonly users: FakeUser[];
  readonly channels: FakeChannel[];
  readonly usergroups: Map<string, string[]>;
  readonly methodFaults = new Map<string, MethodFault>();
  responseUrlFault: { status: number; count: number } | undefined;
  appUrl: string | undefined;
  /** Where apps.connections.open sends a Socket Mode client (a test's WebSocket server). */
  socketModeUrl: string | undefined;
  private readonly targets = new Map<string, ResponseTarget>();
  /** trigger_id → the user whose action made it (views.open accepts each once). */
  private readonly triggers = new Map<string, string>();
  private server: Server | undefined;
  private boundPort: number;
  private tsCounter = 0;

  constructor(private readonly options: FakeSlackOptions) {
    super();
    this.setMaxListeners(1_000);
    this.appUrl = options.appUrl;
    this.users = options.users ?? [];
    this.channels = options.channels ?? [{ id: 'C0SUPPORT', name: 'support' }];
    this.usergroups = new Map(Object.entries(options.usergroups ?? {}));
    this.boundPort = options.port ?? 0;
    this.uploads = new FakeFiles(options.keepUploads ?? true);
  }

  get url(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  /** The Web API base URL for the app's SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.boundPort, '127.0.0.1', () => resolve());
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Extra routes (the sandbox's page) are served by whoever owns this server. */
  fallback: ((req: IncomingMessage, res: ServerResponse, body: string) => Promise<boolean>) | undefined;

  // ---- What a Slack client shows -----------------------------------------------------------------

  /** Messages a user sees in a channel: everything public, plus their own ephemerals. */
  visibleMessages(channel: string, user: string): FakeMessage[] {
    return this.messages.filter(
      (m) => m.channel === channel && !m.deleted && (m.visibleTo === undefined || m.visibleTo === user),
    );
  }

  findMessage(id: string): FakeMessage | undefined {
    return this.messages.find((m) => m.id === id);
  }

  // ---- The client side: what Slack sends the app ------------------------------------------------

  /** Sends a slash command as Slack would, with a fresh response_url; resolves at the app's ack. */
  async runCommand(input: {
    user: string;
    channel: string;
    command: string;
    text: string;
    timestamp?: number;
    signingSecret?: string | null;
  }): Promise<SendResult> {
    const responseUrlId = this.createResponseUrl({ channel: input.channel, user: input.user });
    const user = this.users.find((u) => u.id === input.user);
    this.addMessage({
      channel: input.channel,
      visibleTo: input.user,
      text: `${input.command} ${input.text}`.trim(),
      blocks: [],
      via: 'command',
      author: input.user,
    });
    const form = new URLSearchParams({
      token: 'legacy-verification-token',
      team_id: BOT.teamId,
      team_domain: 'sandbox',
      channel_id: input.channel,
      channel_name: this.channels.find((c) => c.id === input.channel)?.name ?? 'channel',
      user_id: input.user,
      user_name: user?.name ?? 'user',
      command: input.command,
      text: input.text,
      api_app_id: BOT.appId,
      is_enterprise_install: 'false',
      response_url: `${this.url}/response/${responseUrlId}`,
      trigger_id: this.newTrigger(input.user),
    }).toString();
    const result = await this.send(
      form,
      'application/x-www-form-urlencoded',
      input.timestamp,
      input.signingSecret,
    );
    return { ...result, responseUrlId };
  }

  /** Clicks a button in a message as `user` would; the app gets a signed block_actions payload. */
  async click(input: {
    user: string;
    messageId: string;
    actionId: string;
    value?: string;
    signingSecret?: string | null;
    timestamp?: number;
  }): Promise<SendResult> {
    const message = this.findMessage(input.messageId);
    if (!message) throw new Error(`no message ${input.messageId}`);
    const button = findButton(message.blocks, input.actionId, input.value);
    if (!button) throw new Error(`no button ${input.actionId} in message ${input.messageId}`);
    return this.sendBlockAction({
      user: input.user,
      message,
      actionId: input.actionId,
      value: button.value,
      blockId: button.blockId,
      signingSecret: input.signingSecret,
      timestamp: input.timestamp,
    });
  }

  /** A block_actions payload with any value: for tests of tampered or stale buttons. */
  async sendBlockAction(input: {
    user: string;
    message: FakeMessage;
    actionId: string;
    value: string | undefined;
    blockId?: string | undefined;
    signingSecret?: string | null | undefined;
    timestamp?: number | undefined;
  }): Promise<SendResult> {
    const { message } = input;
    const responseUrlId = this.createResponseUrl({
      channel: message.channel,
      user: input.user,
      originalMessageId: message.id,
    });
    const user = this.users.find((u) => u.id === input.user);
    const payload = {
      type: 'block_actions',
      user: {
        id: input.user,
        username: user?.name ?? 'user',
        name: user?.name ?? 'user',
        team_id: BOT.teamId,
      },
      api_app_id: BOT.appId,
      token: 'legacy-verification-token',
      container: {
        type: 'message',
        message_ts: message.ts,
        channel_id: message.channel,
        is_ephemeral: message.visibleTo !== undefined,
      },
      trigger_id: this.newTrigger(input.user),
      team: { id: BOT.teamId, domain: 'sandbox' },
      enterprise: null,
      is_enterprise_install: false,
      channel: {
        id: message.channel,
        name: this.channels.find((c) => c.id === message.channel)?.name ?? 'channel',
      },
      ...(message.visibleTo === undefined
        ? { message: { ts: message.ts, text: message.text, blocks: message.blocks, type: 'message' } }
        : {}),
      state: { values: {} },
      response_url: `${this.url}/response/${responseUrlId}`,
      actions: [
        {
          action_id: input.actionId,
          block_id: input.blockId ?? 'block',
          text: { type: 'plain_text', text: 'button' },
          value: input.value,
          type: 'button',
          action_ts: `${Date.now() / 1000}`,
        },
      ],
    };
    const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const result = await this.send(
      form,
      'application/x-www-form-urlencoded',
      input.timestamp,
      input.signingSecret,
    );
    return { ...result, responseUrlId };
  }

  /**
   * Runs the message shortcut `callbackId` on a message, as Slack does (in a thread too: `threadTs`),
   * with a fresh response_url for the answer to the person who clicked.
   */
  async runMessageShortcut(input: {
    user: string;
    channel: string;
    callbackId: string;
    messageText: string;
    threadTs?: string | undefined;
  }): Promise<SendResult> {
    const responseUrlId = this.createResponseUrl({ channel: input.channel, user: input.user });
    const user = this.users.find((u) => u.id === input.user);
    const ts = `${Math.floor(Date.now() / 1000)}.000${++this.tsCounter}`;
    const payload = {
      type: 'message_action',
      token: 'legacy-verification-token',
      action_ts: `${Date.now() / 1000}`,
      team: { id: BOT.teamId, domain: 'sandbox' },
      user: {
        id: input.user,
        username: user?.name ?? 'user',
        name: user?.name ?? 'user',
        team_id: BOT.teamId,
      },
      channel: {
        id: input.channel,
        name: this.channels.find((c) => c.id === input.channel)?.name ?? 'channel',
      },
      is_enterprise_install: false,
      enterprise: null,
      callback_id: input.callbackId,
      trigger_id: this.newTrigger(input.user),
      response_url: `${this.url}/response/${responseUrlId}`,
      message_ts: ts,
      message: {
        type: 'message',
        user: 'U0CUSTOMER',
        ts,
        text: input.messageText,
        ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      },
    };
    const result = await this.send(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
    return { ...result, responseUrlId };
  }

  /** Clicks a button on a user's Home tab (no response_url: Home clicks have none). */
  async clickHome(input: { user: string; actionId: string }): Promise<SendResult> {
    const view = this.views.get(input.user) as { blocks?: unknown[] } | undefined;
    const button = findButton(view?.blocks ?? [], input.actionId);
    if (!button) throw new Error(`no button ${input.actionId} on ${input.user}'s home`);
    const payload = {
      type: 'block_actions',
      user: { id: input.user, username: 'user', name: 'user', team_id: BOT.teamId },
      api_app_id: BOT.appId,
      token: 'legacy-verification-token',
      container: { type: 'view', view_id: `V${input.user}` },
      trigger_id: this.newTrigger(input.user),
      team: { id: BOT.teamId, domain: 'sandbox' },
      view: { id: `V${input.user}`, type: 'home', ...(view ?? {}) },
      actions: [
        {
          action_id: input.actionId,
          block_id: button.blockId,
          value: button.value,
          type: 'button',
          action_ts: `${Date.now() / 1000}`,
        },
      ],
    };
    return this.send(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
  }

  /**
   * Opens a user's Home tab: the app gets app_home_opened. `redelivery` sends an event again as
   * Slack does when it missed the ack: the same event_id, with x-slack-retry-num.
   */
  async openHome(
    user: string,
    tab: 'home' | 'messages' = 'home',
    redelivery?: { eventId: string; retryNum: number },
  ): Promise<SendResult & { eventId: string }> {
    const eventId = redelivery?.eventId ?? `Ev${randomBytes(6).toString('hex')}`;
    const body = JSON.stringify({
      token: 'legacy-verification-token',
      team_id: BOT.teamId,
      api_app_id: BOT.appId,
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      event: { type: 'app_home_opened', user, channel: `D${user}`, tab, event_ts: `${Date.now() / 1000}` },
      authorizations: [{ team_id: BOT.teamId, user_id: BOT.botUserId, is_bot: true }],
    });
    const retryHeaders = redelivery
      ? { 'x-slack-retry-num': String(redelivery.retryNum), 'x-slack-retry-reason': 'http_timeout' }
      : undefined;
    return { ...(await this.send(body, 'application/json', undefined, undefined, retryHeaders)), eventId };
  }

  private newTrigger(user: string): string {
    const trigger = `trigger.${randomBytes(6).toString('hex')}`;
    this.triggers.set(trigger, user);
    return trigger;
  }

  /**
   * Submits the user's newest modal with `values` (block_id → action_id → value), as Slack sends a
   * view_submission. Resolves with the app's answer: empty (the modal closes) or response_action errors.
   */
  async submitView(input: {
    user: string;
    values: Record<string, Record<string, Record<string, unknown>>>;
  }): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    const open = this.modals.get(input.user) ?? [];
    const modal = open.at(-1);
    if (!modal) throw new Error(`no modal open for ${input.user}`);
    const payload = {
      type: 'view_submission',
      team: { id: BOT.teamId, domain: 'sandbox' },
      user: { id: input.user, username: 'user', name: 'user', team_id: BOT.teamId },
      api_app_id: BOT.appId,
      token: 'legacy-verification-token',
      trigger_id: this.newTrigger(input.user),
      view: {
        ...modal.view,
        id: modal.id,
        team_id: BOT.teamId,
        type: 'modal',
        state: { values: input.values },
        hash: randomBytes(4).toString('hex'),
      },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    };
    const result = await this.send(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
    let body: Record<string, unknown> | undefined;
    try {
      body = result.body ? (JSON.parse(result.body) as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    // No response_action: Slack closes the modal.
    if (result.status === 200 && !body?.response_action) this.modals.set(input.user, open.slice(0, -1));
    this.emit('change');
    return { status: result.status, body };
  }

  /** Resolves when `check` finds what it waits for, re-checked on every change; rejects at timeout. */
  waitFor<T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    return waitForEvent(this, 'change', check, timeoutMs, 'a change in the fake Slack');
  }

  private async send(
    body: string,
    contentType: string,
    timestamp?: number,
    signingSecret?: string | null,
    extraHeaders?: Record<string, string>,
  ): Promise<SendResult> {
    if (!this.appUrl) throw new Error('fake Slack: appUrl is not set');
    const secret = signingSecret === undefined ? this.options.signingSecret : signingSecret;
    const headers = {
      ...(secret === null
        ? { 'content-type': contentType }
        : signedHeaders(secret, body, contentType, timestamp)),
      ...extraHeaders,
    };
    const started = performance.now();
    const response = await fetch(`${this.appUrl}/slack/events`, { method: 'POST', headers, body });
    const text = await response.text();
    return { status: response.status, ackMs: performance.now() - started, body: text };
  }

  // ---- Server side: the Web API and response_urls -------------------------------------------------

  createResponseUrl(target: Omit<ResponseTarget, 'posts' | 'createdAt'>): string {
    const id = randomBytes(12).toString('hex');
    this.targets.set(id, { ...target, posts: 0, createdAt: Date.now() });
    return id;
  }

  private addMessage(message: Omit<FakeMessage, 'id' | 'ts' | 'deleted' | 'replacedCount'>): FakeMessage {
    this.tsCounter++;
    const stored: FakeMessage = {
      ...message,
      id: `M${this.tsCounter}`,
      ts: `${Math.floor(Date.now() / 1000)}.${String(this.tsCounter).padStart(6, '0')}`,
      deleted: false,
      replacedCount: 0,
    };
    this.messages.push(stored);
    return stored;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake-slack');
    if (req.method === 'POST' && url.pathname.startsWith('/api/')) {
      this.webApi(url.pathname.slice(5), req, body, res);
      return;
    }
    if (req.method === 'POST' && url.pathname.startsWith('/upload/')) {
      const status = this.uploads.receive(url.pathname.slice(8), body);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'OK' : 'refused');
      this.emit('change');
      return;
    }
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      const file = this.uploads.files.get(url.pathname.slice(7));
      if (!file?.content) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, {
        'content-type': file.name.endsWith('.csv') ? 'text/csv; charset=utf-8' : 'application/octet-stream',
        'content-disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`,
      });
      res.end(file.content);
      return;
    }
    if (req.method === 'POST' && url.pathname.startsWith('/response/')) {
      this.responseUrl(url.pathname.slice(10), body, res);
      return;
    }
    if (this.fallback && (await this.fallback(req, res, body))) return;
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  private webApi(method: string, req: IncomingMessage, raw: string, res: ServerResponse): boolean {
    const args = parseArgs(req.headers['content-type'], raw);
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || String(args.token ?? '');
    const answer = (
      status: number,
      body: Record<string, unknown>,
      headers: Record<string, string> = {},
    ): true => {
      this.calls.push({ method, args, status, ok: body.ok === true, at: Date.now() });
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
      this.emit('change');
      return true;
    };
    if (method === 'apps.connections.open') {
      // Socket Mode asks with the app-level token for the WebSocket address to connect to.
      if (!this.options.appToken || token !== this.options.appToken || !this.socketModeUrl)
        return answer(200, { ok: false, error: 'invalid_auth' });
      return answer(200, { ok: true, url: this.socketModeUrl });
    }
    if (token !== this.options.botToken) return answer(200, { ok: false, error: 'invalid_auth' });
    const fault = this.methodFaults.get(method);
    if (fault && fault.count > 0) {
      fault.count--;
      if (fault.rateLimited)
        return answer(
          429,
          { ok: false, error: 'ratelimited' },
          { 'retry-after': String(fault.rateLimited.retryAfterSeconds) },
        );
      return answer(200, { ok: false, error: fault.error ?? 'internal_error' });
    }
    switch (method) {
      case 'auth.test':
        return answer(200, {
          ok: true,
          url: 'https://sandbox.slack.test/',
          team: 'Sandbox',
          user: 'orderdesk',
          team_id: BOT.teamId,
          user_id: BOT.botUserId,
          bot_id: BOT.botId,
        });
      case 'chat.postMessage': {
        const channel = String(args.channel ?? '');
        if (!channel) return answer(200, { ok: false, error: 'channel_not_found' });
        const message = this.addMessage({
          channel,
          text: String(args.text ?? ''),
          blocks: asBlocks(args.blocks),
          via: 'chat.postMessage',
          author: BOT.botUserId,
        });
        return answer(200, {
          ok: true,
          channel,
          ts: message.ts,
          message: { text: message.text, ts: message.ts },
        });
      }
      case 'chat.postEphemeral': {
        const message = this.addMessage({
          channel: String(args.channel ?? ''),
          visibleTo: String(args.user ?? ''),
          text: String(args.text ?? ''),
          blocks: asBlocks(args.blocks),
          via: 'chat.postEphemeral',
          author: BOT.botUserId,
        });
        return answer(200, { ok: true, message_ts: message.ts });
      }
      case 'views.publish': {
        const userId = String(args.user_id ?? '');
        const view = parseJsonArg(args.view);
        if (!userId || !view) return answer(200, { ok: false, error: 'invalid_arguments' });
        this.views.set(userId, view);
        return answer(200, { ok: true, view: { id: `V${userId}`, ...(view as object) } });
      }
      case 'users.info': {
        const result = userInfo(this.users, String(args.user ?? ''), BOT.teamId);
        return answer(200, result);
      }
      case 'conversations.open': {
        const users = String(args.users ?? '');
        if (!/^[UW][A-Z0-9]+$/.test(users)) return answer(200, { ok: false, error: 'user_not_found' });
        const channel = `D${users.slice(1)}`;
        if (!this.channels.some((c) => c.id === channel))
          this.channels.push({ id: channel, name: `dm-${users}` });
        return answer(200, { ok: true, channel: { id: channel } });
      }
      case 'chat.update': {
        const message = this.messages.find(
          (m) => m.channel === String(args.channel ?? '') && m.ts === String(args.ts ?? ''),
        );
        if (!message) return answer(200, { ok: false, error: 'message_not_found' });
        message.text = String(args.text ?? message.text);
        message.blocks = args.blocks === undefined ? message.blocks : asBlocks(args.blocks);
        message.replacedCount++;
        return answer(200, { ok: true, channel: message.channel, ts: message.ts });
      }
      case 'views.open': {
        const view = parseJsonArg(args.view) as Record<string, unknown> | undefined;
        const trigger = String(args.trigger_id ?? '');
        const user = this.triggers.get(trigger);
        if (!view || !user) return answer(200, { ok: false, error: 'invalid_trigger_id' });
        this.triggers.delete(trigger);
        const id = `V${randomBytes(5).toString('hex').toUpperCase()}`;
        this.modals.set(user, [...(this.modals.get(user) ?? []), { id, view }]);
        return answer(200, { ok: true, view: { id, ...view } });
      }
      case 'files.getUploadURLExternal':
        return answer(200, this.uploads.getUploadUrl(this.url, args));
      case 'files.completeUploadExternal': {
        const result = this.uploads.complete(args);
        if (result.ok)
          for (const file of result.files) {
            if (!file.channel) continue;
            this.addMessage({
              channel: file.channel,
              text: '',
              blocks: [],
              via: 'chat.postMessage',
              author: BOT.botUserId,
              files: [
                { id: file.id, name: file.name, title: file.title, url: `${this.url}/files/${file.id}` },
              ],
            });
          }
        return answer(
          200,
          result.ok ? { ok: true, files: result.files.map((f) => ({ id: f.id, title: f.title })) } : result,
        );
      }
      case 'bots.info':
        return answer(200, botInfo(String(args.bot ?? ''), BOT));
      case 'conversations.info': {
        const result = conversationInfo(this.channels, String(args.channel ?? ''));
        return answer(200, result);
      }
      case 'usergroups.users.list': {
        const members = this.usergroups.get(String(args.usergroup ?? ''));
        if (!members) return answer(200, { ok: false, error: 'no_such_subteam' });
        return answer(200, { ok: true, users: members });
      }
      default:
        return answer(200, { ok: false, error: 'unknown_method' });
    }
  }

  private responseUrl(id: string, raw: string, res: ServerResponse): boolean {
    const target = this.targets.get(id);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded as sent; answered 400 below
    }
    const finish = (status: number, text: string): true => {
      this.responsePosts.push({
        responseUrlId: id,
        body,
        status,
        at: Date.now(),
        receivedAt: performance.now(),
        user: target?.user ?? '',
        channel: target?.channel ?? '',
      });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(text);
      this.emit('change');
      return true;
    };
    if (this.responseUrlFault && this.responseUrlFault.count > 0) {
      this.responseUrlFault.count--;
      return finish(this.responseUrlFault.status, 'simulated_failure');
    }
    const limit = this.options.responseUrlLimit ?? 5;
    const ttl = this.options.responseUrlTtlMs ?? 30 * 60_000;
    if (!target || Date.now() - target.createdAt > ttl) return finish(404, 'expired_url');
    if (target.posts >= limit) return finish(404, 'used_url');
    if (Object.keys(body).length === 0) return finish(400, 'invalid_payload');
    target.posts++;
    const original = target.originalMessageId ? this.findMessage(target.originalMessageId) : undefined;
    if (body.delete_original === true) {
      if (original) original.deleted = true;
      return finish(200, 'ok');
    }
    const blocks = Array.isArray(body.blocks) ? body.blocks : [];
    const text = typeof body.text === 'string' ? body.text : '';
    // As in Slack, replace_original edits the message a button sat in; a command's own response_url has none.
    if (body.replace_original === true && original && !original.deleted) {
      original.text = text;
      original.blocks = blocks;
      original.replacedCount++;
      return finish(200, 'ok');
    }
    const inChannel = body.response_type === 'in_channel';
    this.addMessage({
      channel: target.channel,
      visibleTo: inChannel ? undefined : target.user,
      text,
      blocks,
      via: 'response_url',
      author: target.user,
    });
    return finish(200, 'ok');
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseArgs(contentType: string | undefined, raw: string): Record<string, unknown> {
  if (contentType?.includes('application/json')) {
    try {
      return JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

function parseJsonArg(value: unknown): unknown[] | Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as unknown[] | Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return value as unknown[] | Record<string, unknown> | undefined;
}

function asBlocks(value: unknown): unknown[] {
  const parsed = parseJsonArg(value);
  return Array.isArray(parsed) ? parsed : [];
}

interface FoundButton {
  value: string | undefined;
  blockId: string;
}

/** Finds a button by action_id (and value, when given) in blocks: actions elements and accessories. */
export function findButton(blocks: unknown[], actionId: string, value?: string): FoundButton | undefined {
  for (const block of blocks as Array<Record<string, unknown>>) {
    const candidates = [
      ...((block.elements as Array<Record<string, unknown>> | undefined) ?? []),
      ...(block.accessory ? [block.accessory as Record<string, unknown>] : []),
    ];
    for (const element of candidates) {
      if (
        element.type === 'button' &&
        element.action_id === actionId &&
        (value === undefined || element.value === value)
      ) {
        return { value: element.value as string | undefined, blockId: String(block.block_id ?? 'block') };
      }
    }
  }
  return undefined;
}

export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  return new FakeSlack(options).start();
}
