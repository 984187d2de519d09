import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { DataBlockSurface } from './data-blocks.js';
import { FakeFiles } from './files.js';
import {
  FakeFunctions,
  type FunctionDefinition,
  readManifestBotScopes,
  readManifestFunctions,
} from './functions.js';
import type {
  FakeChannel,
  FakeMessage,
  FakeModal,
  FakeUser,
  RecordedCall,
  ResponsePost,
  ResponseTarget,
  SharedLink,
} from './model.js';
import { BOT } from './model.js';
import { waitForEvent } from './wait.js';
import { FakeWorkObjects, type RecordedEntity } from './work-objects.js';

// What the fake Slack knows and has seen: the workspace (users, channels, user groups), what a Slack
// client would show (messages, Home tabs, modals, files) and every request the app made. The Web API
// families, the response_urls and the client-side driver all read and change this one record, so a
// test sees their effects in one place. The server emits 'change' after each request it answers;
// waitFor re-checks on it.

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
  /** The app's Workflow Builder steps as Slack knows them; default: manifest.yml's `functions`. */
  functions?: Record<string, FunctionDefinition> | undefined;
  /** The manifest's features.unfurl_domains: links on these (and their subdomains) send link_shared. */
  unfurlDomains?: string[] | undefined;
  /** The bot token's scopes, sent as `x-oauth-scopes` on every answer; default: manifest.yml's bot scopes. */
  scopes?: string[] | undefined;
}

/** What a trigger_id stands for: whose interaction it was, and in which conversation, if any. */
export interface Trigger {
  user: string;
  channel?: string | undefined;
}

export type NewMessage = Omit<FakeMessage, 'id' | 'ts' | 'deleted' | 'replacedCount'>;

export class SlackState extends EventEmitter {
  readonly calls: RecordedCall[] = [];
  readonly responsePosts: ResponsePost[] = [];
  readonly messages: FakeMessage[] = [];
  readonly views = new Map<string, unknown>();
  /** Modals open per user (views.open), newest last. */
  readonly modals = new Map<string, FakeModal[]>();
  readonly uploads: FakeFiles;
  /** Work Objects' flexpanes: their trigger_ids and what the app put in each (work-objects.ts). */
  readonly workObjects = new FakeWorkObjects();
  /** Workflow Builder steps: their declarations and every run (functions.ts). */
  readonly functions: FakeFunctions;
  readonly users: FakeUser[];
  readonly channels: FakeChannel[];
  readonly usergroups: Map<string, string[]>;
  /** The app's unfurl domains (the manifest's features.unfurl_domains); a test may change them. */
  unfurlDomains: string[];
  /** The bot token's scopes (x-oauth-scopes, as Slack sends them); a test may change them. */
  scopes: string[];
  /** Links still in a person's message composer, by unfurl_id: chat.unfurl with source composer. */
  readonly composerDrafts = new Map<
    string,
    { user: string; links: SharedLink[]; unfurls?: Record<string, unknown>; entities?: RecordedEntity[] }
  >();
  /**
   * Workspaces (team IDs) whose Slack refuses the data table and chart blocks, and where: as a
   * workspace without them yet would (set through the driver's setDataBlocksRefused).
   */
  readonly dataBlocksRefused = new Map<string, Set<DataBlockSurface>>();
  appUrl: string | undefined;
  /** Where apps.connections.open sends a Socket Mode client (a test's WebSocket server). */
  socketModeUrl: string | undefined;
  /** The port asked for until the server listens, then the one it got. */
  protected boundPort: number;
  private readonly responseTargets = new Map<string, ResponseTarget>();
  /** trigger_id → the user whose action made it, and where (views.open accepts each once). */
  private readonly triggers = new Map<string, Trigger>();
  private sequence = 0;

  constructor(readonly options: FakeSlackOptions) {
    super();
    this.setMaxListeners(1_000);
    this.appUrl = options.appUrl;
    this.users = options.users ?? [];
    this.channels = options.channels ?? [{ id: 'C0SUPPORT', name: 'support' }];
    this.usergroups = new Map(Object.entries(options.usergroups ?? {}));
    this.unfurlDomains = options.unfurlDomains ?? [];
    this.scopes = options.scopes ?? readManifestBotScopes();
    this.boundPort = options.port ?? 0;
    this.uploads = new FakeFiles(options.keepUploads ?? true);
    this.functions = new FakeFunctions(options.functions ?? readManifestFunctions());
  }

  get url(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  /** The Web API base URL for the app's SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** Messages a user sees in a channel: everything public, plus their own ephemerals. */
  visibleMessages(channel: string, user: string): FakeMessage[] {
    return this.messages.filter(
      (m) => m.channel === channel && !m.deleted && (m.visibleTo === undefined || m.visibleTo === user),
    );
  }

  /** Whether the app's workspace (the only one that calls) refuses tables and charts on `surface`. */
  refusesDataBlocks(surface: DataBlockSurface): { refuseDataBlocks: boolean } {
    return { refuseDataBlocks: this.dataBlocksRefused.get(BOT.teamId)?.has(surface) ?? false };
  }

  findMessage(id: string): FakeMessage | undefined {
    return this.messages.find((m) => m.id === id);
  }

  addMessage(message: NewMessage): FakeMessage {
    const sequence = this.nextSequence();
    const stored: FakeMessage = {
      ...message,
      id: `M${sequence}`,
      ts: `${Math.floor(Date.now() / 1000)}.${String(sequence).padStart(6, '0')}`,
      deleted: false,
      replacedCount: 0,
    };
    this.messages.push(stored);
    return stored;
  }

  /** One counter for message IDs and timestamps, so no two messages share a ts. */
  nextSequence(): number {
    return ++this.sequence;
  }

  createResponseUrl(target: Omit<ResponseTarget, 'posts' | 'createdAt'>): string {
    const id = randomBytes(12).toString('hex');
    this.responseTargets.set(id, { ...target, posts: 0, createdAt: Date.now() });
    return id;
  }

  responseTarget(id: string): ResponseTarget | undefined {
    return this.responseTargets.get(id);
  }

  /**
   * A trigger_id for an interaction of `user`, as Slack puts in commands, clicks and submissions;
   * `channel` is the conversation it happened in, when it happened in one.
   */
  newTrigger(user: string, channel?: string): string {
    const trigger = `trigger.${randomBytes(6).toString('hex')}`;
    this.triggers.set(trigger, { user, channel });
    return trigger;
  }

  /** Who a trigger_id was made for, and where; a trigger works once, as in Slack. */
  takeTrigger(trigger: string): Trigger | undefined {
    const found = this.triggers.get(trigger);
    this.triggers.delete(trigger);
    return found;
  }

  /** Opens a modal on top of the user's others (views.open, response_action: push). */
  pushModal(user: string, view: Record<string, unknown>, channel?: string): FakeModal {
    const modal: FakeModal = { id: `V${randomBytes(5).toString('hex').toUpperCase()}`, view, channel };
    this.modals.set(user, [...(this.modals.get(user) ?? []), modal]);
    return modal;
  }

  /** Resolves when `check` finds what it waits for, re-checked on every change; rejects at timeout. */
  waitFor<T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    return waitForEvent(this, 'change', check, timeoutMs, 'a change in the fake Slack');
  }
}
