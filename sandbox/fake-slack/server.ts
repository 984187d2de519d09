import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assistantMethods } from './assistant.js';
import { APP_LEVEL_METHODS, authMethods } from './auth.js';
import { chatMethods } from './chat.js';
import { conversationsMethods } from './conversations.js';
import type { DataBlockSurface } from './data-blocks.js';
import {
  type BlockActionInput,
  type ClickInput,
  type CommandInput,
  type EntityActionInput,
  type EntityDetailsInput,
  type EntityDetailsResult,
  type FunctionRunInput,
  type FunctionRunResult,
  type MessageShortcutInput,
  type PostedMessage,
  type PostMessageInput,
  type Redelivery,
  type SendResult,
  SlackClientDriver,
  type ViewSubmissionInput,
  type ViewSubmissionResult,
} from './driver.js';
import { entityMethods } from './entity-api.js';
import { type MethodFault, takeFault, UPLOAD, uploadFaultAnswer, webApiFaultAnswer } from './faults.js';
import { downloadRoute, type ReceivedUpload, uploadRoute } from './files.js';
import { filesMethods } from './files-api.js';
import type { FunctionExecution } from './functions.js';
import { functionsMethods } from './functions-api.js';
import { countBody, jsonAnswer, type RouteAnswer, readBody, writeAnswer } from './http.js';
import { answerResponseUrl, type ResponseUrlFault } from './response-urls.js';
import { type FakeSlackOptions, SlackState } from './state.js';
import { usersMethods } from './users.js';
import { viewsMethods } from './views.js';
import { parseArgs, type WebApiHandler } from './web-api.js';
import type { FakePanel } from './work-objects.js';

// A stand-in for Slack on this machine: the Web API the app calls, the response_urls it posts to,
// and the client side that sends the app signed commands, clicks and events. The end-to-end tests
// and the local sandbox both use it, so the sandbox shows what the tests check.
//
// This file only wires the parts: the HTTP server and its routes, authentication, faults and the
// record of every call. What each Web API method does is in its family's file (chat, views, users,
// conversations, files, functions, auth, assistant); the record itself is SlackState (state.ts); the
// driver (driver.ts) is what a person in Slack does.

export { type FoundButton, findButton } from './buttons.js';
export type { DataBlockSurface } from './data-blocks.js';
export type {
  EntityActionInput,
  EntityDetailsInput,
  EntityDetailsResult,
  FunctionRunInput,
  FunctionRunResult,
  PostedMessage,
  SendResult,
} from './driver.js';
export { type MethodFault, UPLOAD } from './faults.js';
export type { FunctionDefinition, FunctionExecution } from './functions.js';
export { BOT } from './model.js';
export type { ResponseUrlFault } from './response-urls.js';
export type { FakeSlackOptions } from './state.js';
export type { FakePanel, RecordedEntity } from './work-objects.js';

// Where the upload URLs files.getUploadURLExternal hands out point.
const UPLOAD_PATH = '/upload/';

const WEB_API = new Map<string, WebApiHandler>(
  Object.entries({
    ...assistantMethods,
    ...authMethods,
    ...chatMethods,
    ...conversationsMethods,
    ...entityMethods,
    ...filesMethods,
    ...functionsMethods,
    ...usersMethods,
    ...viewsMethods,
  }),
);

export class FakeSlack extends SlackState {
  /** Faults per Web API method, or for the file upload under UPLOAD ('upload'); see MethodFault. */
  readonly methodFaults = new Map<string, MethodFault>();
  /**
   * Set: Slack's posting limit enforced, at most this many chat.postMessage per second per channel;
   * a faster post is answered 429 with Retry-After and counted in `rateLimitedPosts`.
   */
  postsPerSecondPerChannel: number | undefined;
  /** chat.postMessage calls refused by `postsPerSecondPerChannel`. */
  rateLimitedPosts = 0;
  private readonly lastPostAt = new Map<string, number>();
  responseUrlFault: ResponseUrlFault | undefined;
  /** Extra routes (the sandbox's page) are served by whoever owns this server. */
  fallback: ((req: IncomingMessage, res: ServerResponse, body: string) => Promise<boolean>) | undefined;
  private server: Server | undefined;
  private readonly driver = new SlackClientDriver(this);
  /** Method, path prefix, and the answer for the rest of the path (a method name, file or URL id). */
  private readonly routes: Array<
    [string, string, (rest: string, req: IncomingMessage, body: Buffer) => RouteAnswer]
  > = [
    ['POST', '/api/', (method, req, body) => this.webApi(method, req, body.toString('utf8'))],
    // The bytes as they came: a file is not decoded unless it is kept (a 12 MB export, in benchmarks).
    ['POST', UPLOAD_PATH, (fileId, _req, body) => this.upload(fileId, { length: body.length, bytes: body })],
    ['GET', '/files/', (fileId) => downloadRoute(this.uploads, fileId)],
    [
      'POST',
      '/response/',
      (id, _req, body) => answerResponseUrl(this, id, body.toString('utf8'), this.responseUrlFault),
    ],
  ];

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

  /** Answers the next `count` calls of `method` (or UPLOAD) with `fault`, then the method works again. */
  failNext(method: string, fault: Omit<MethodFault, 'count'>, count = 1): void {
    this.methodFaults.set(method, { ...fault, count });
  }

  // ---- The client side: what a person in Slack does (driver.ts) -----------------------------------

  /** Slack without tables and charts on `surface`, for the workspace `teamId` (driver.ts). */
  setDataBlocksRefused(surface: DataBlockSurface, refused: boolean, teamId?: string): void {
    this.driver.setDataBlocksRefused(surface, refused, teamId);
  }

  /** The surfaces on which the workspace `teamId` (default: the app's) refuses tables and charts. */
  dataBlocksRefusedOn(teamId?: string): DataBlockSurface[] {
    return this.driver.dataBlocksRefusedOn(teamId);
  }

  /** Sends a slash command as Slack would, with a fresh response_url; resolves at the app's ack. */
  runCommand(input: CommandInput): Promise<SendResult> {
    return this.driver.runCommand(input);
  }

  /** Clicks a button in a message as `user` would; the app gets a signed block_actions payload. */
  click(input: ClickInput): Promise<SendResult> {
    return this.driver.click(input);
  }

  /** A block_actions payload with any value: for tests of tampered or stale buttons. */
  sendBlockAction(input: BlockActionInput): Promise<SendResult> {
    return this.driver.sendBlockAction(input);
  }

  /** Runs the message shortcut `callbackId` on a message (in a thread too: `threadTs`). */
  runMessageShortcut(input: MessageShortcutInput): Promise<SendResult> {
    return this.driver.runMessageShortcut(input);
  }

  /** Clicks a button on a user's Home tab (no response_url: Home clicks have none). */
  clickHome(input: { user: string; actionId: string }): Promise<SendResult> {
    return this.driver.clickHome(input);
  }

  /** Opens a user's Home tab: the app gets app_home_opened (again, as Slack retries: `redelivery`). */
  openHome(
    user: string,
    tab: 'home' | 'messages' = 'home',
    redelivery?: Redelivery,
  ): Promise<SendResult & { eventId: string }> {
    return this.driver.openHome(user, tab, redelivery);
  }

  /** A person posts a message; links on the app's unfurl domains send it a signed link_shared. */
  postMessage(input: PostMessageInput): Promise<PostedMessage> {
    return this.driver.postMessage(input);
  }

  /** A message event (message.im) of any kind: the bot's own, an edit, one in a channel. */
  sendMessageEvent(event: Record<string, unknown>): Promise<SendResult & { eventId: string }> {
    return this.driver.sendMessageEvent(event);
  }

  /** A person types links into the composer (link_shared with source "composer"); nothing is posted. */
  typeInComposer(input: {
    user: string;
    text: string;
  }): Promise<(SendResult & { eventId: string }) | undefined> {
    return this.driver.typeInComposer(input);
  }

  /** Sends an event again, the same body with x-slack-retry-num, as Slack does when it missed the ack. */
  redeliverEvent(redelivery: Redelivery): Promise<SendResult> {
    return this.driver.redeliverEvent(redelivery);
  }

  /** Submits the user's newest modal with `values`; resolves with the app's answer. */
  submitView(input: ViewSubmissionInput): Promise<ViewSubmissionResult> {
    return this.driver.submitView(input);
  }

  /** A workflow reaches the step `callbackId` (function_executed); resolves at the app's ack. */
  runFunction(input: FunctionRunInput): Promise<FunctionRunResult> {
    return this.driver.runFunction(input);
  }

  /** Opens a Work Object's flexpane as `user`: a signed entity_details_requested with a fresh trigger_id. */
  requestEntityDetails(input: EntityDetailsInput): Promise<EntityDetailsResult> {
    return this.driver.requestEntityDetails(input);
  }

  /** Clicks a button in a flexpane: block_actions with container.type "entity_detail", a fresh trigger_id. */
  clickEntityAction(input: EntityActionInput): Promise<SendResult & { triggerId: string }> {
    return this.driver.clickEntityAction(input);
  }

  /** What the app put in each flexpane (entity.presentDetails accepted), by the trigger_id it used. */
  get panels(): ReadonlyMap<string, FakePanel> {
    return this.workObjects.panels;
  }

  /** Resolves when the app has filled the panel of `triggerId` (entity.presentDetails accepted). */
  waitForPanel(triggerId: string, timeoutMs = 10_000): Promise<FakePanel> {
    return this.waitFor(() => this.workObjects.panels.get(triggerId), timeoutMs);
  }

  /** Resolves when the app has ended the run (functions.completeSuccess or completeError). */
  waitForFunctionCompletion(
    functionExecutionId: string,
    timeoutMs = 10_000,
  ): Promise<FunctionExecution & { completion: NonNullable<FunctionExecution['completion']> }> {
    return this.waitFor(() => {
      const execution = this.functions.executions.get(functionExecutionId);
      return execution?.completion ? { ...execution, completion: execution.completion } : undefined;
    }, timeoutMs);
  }

  // ---- The server side: routes ---------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A file whose bytes are not kept (benchmarks): counted as they come, not held. Collecting a
    // 12 MB export and collecting its garbage delayed the fake's answers to the calls after it by up
    // to 20 ms, which the benchmark then counted as the exporter's.
    if (req.method === 'POST' && req.url?.startsWith(UPLOAD_PATH) && !this.uploads.keepContent) {
      const length = await countBody(req);
      writeAnswer(res, this.upload(req.url.slice(UPLOAD_PATH.length), { length }));
      this.emit('change');
      return;
    }
    const body = await readBody(req);
    const answer = this.route(req, body);
    if (answer) {
      writeAnswer(res, answer);
      // Downloads (the only GETs) change nothing; every other answer is news for waitFor.
      if (req.method !== 'GET') this.emit('change');
      return;
    }
    if (this.fallback && (await this.fallback(req, res, body.toString('utf8')))) return;
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  private route(req: IncomingMessage, body: Buffer): RouteAnswer | undefined {
    const { pathname } = new URL(req.url ?? '/', 'http://fake-slack');
    const found = this.routes.find(
      ([method, prefix]) => req.method === method && pathname.startsWith(prefix),
    );
    return found?.[2](pathname.slice(found[1].length), req, body);
  }

  /** Every call is recorded, refused and faulted ones too, so a test can count attempts. */
  private webApi(method: string, req: IncomingMessage, raw: string): RouteAnswer {
    const args = parseArgs(req.headers['content-type'], raw);
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || String(args.token ?? '');
    const answer = this.answerWebApi(method, args, token);
    this.calls.push({ method, args, status: answer.status, ok: answer.ok, at: Date.now() });
    return answer;
  }

  private answerWebApi(
    method: string,
    args: Record<string, unknown>,
    token: string,
  ): RouteAnswer & { ok: boolean } {
    const appLevel = APP_LEVEL_METHODS.has(method);
    const expected = appLevel ? this.options.appToken : this.options.botToken;
    // A workflow step's token (xwfp-) stands in for the bot token while its step runs.
    const byWorkflow = !appLevel && this.functions.accepts(method, token);
    if (!byWorkflow && (!expected || token !== expected))
      return { ...jsonAnswer(200, { ok: false, error: 'invalid_auth' }), ok: false };
    const fault = takeFault(this.methodFaults, method);
    if (fault) return { ...webApiFaultAnswer(fault), ok: false };
    if (method === 'chat.postMessage' && this.postsPerSecondPerChannel !== undefined) {
      const channel = String(args.channel ?? '');
      const last = this.lastPostAt.get(channel);
      const now = performance.now();
      if (last !== undefined && now - last < 1000 / this.postsPerSecondPerChannel) {
        this.rateLimitedPosts++;
        return { ...webApiFaultAnswer({ rateLimited: { retryAfterSeconds: 1 }, count: 1 }), ok: false };
      }
      this.lastPostAt.set(channel, now);
    }
    const handler = WEB_API.get(method);
    const result = handler ? handler(args, this, { token }) : { ok: false, error: 'unknown_method' };
    // Slack names the token's scopes on every answer (the Web API client reads them from this header).
    const scopes: Record<string, string> =
      byWorkflow || appLevel ? {} : { 'x-oauth-scopes': this.scopes.join(',') };
    return { ...jsonAnswer(200, result, scopes), ok: result.ok === true };
  }

  /** The upload POST is recorded as a call of 'upload', with the file and its size, not its bytes. */
  private upload(fileId: string, received: ReceivedUpload): RouteAnswer {
    const fault = takeFault(this.methodFaults, UPLOAD);
    const answer = fault ? uploadFaultAnswer(fault) : uploadRoute(this.uploads, fileId, received);
    const args = { file_id: fileId, length: received.length };
    this.calls.push({
      method: UPLOAD,
      args,
      status: answer.status,
      ok: answer.status === 200,
      at: Date.now(),
    });
    return answer;
  }
}

export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  return new FakeSlack(options).start();
}
