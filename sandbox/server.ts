import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeUser } from './fake-slack/model.js';
import { type FakeSlack, findButton } from './fake-slack/server.js';
import type { PartnerHistoryControls } from './partner-controls.js';
import { refusedBySlack, sandboxDirectory } from './slack-connect.js';
import { slackbotRoute } from './slackbot-routes.js';
import { panelState, workObjectRoute } from './work-object-routes.js';
import { workflowStepRoute } from './workflow-steps.js';

// The sandbox page and its small JSON API, served beside the fake Slack's Web API on one port.

export interface SandboxUser extends FakeUser {
  role: string;
}

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/api.js': { file: 'api.js', type: 'text/javascript; charset=utf-8' },
  '/clock.js': { file: 'clock.js', type: 'text/javascript; charset=utf-8' },
  '/render.js': { file: 'render.js', type: 'text/javascript; charset=utf-8' },
  '/modal.js': { file: 'modal.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
  '/workflow-panel.js': { file: 'workflow-panel.js', type: 'text/javascript; charset=utf-8' },
  '/workflow-panel.css': { file: 'workflow-panel.css', type: 'text/css; charset=utf-8' },
  '/work-objects.js': { file: 'work-objects.js', type: 'text/javascript; charset=utf-8' },
  '/slackbot-panel.js': { file: 'slackbot-panel.js', type: 'text/javascript; charset=utf-8' },
  '/render-table.js': { file: 'render-table.js', type: 'text/javascript; charset=utf-8' },
  '/render-chart.js': { file: 'render-chart.js', type: 'text/javascript; charset=utf-8' },
  '/data-table-controls.js': { file: 'data-table-controls.js', type: 'text/javascript; charset=utf-8' },
  '/data-blocks-switch.js': { file: 'data-blocks-switch.js', type: 'text/javascript; charset=utf-8' },
  '/data-blocks.css': { file: 'data-blocks.css', type: 'text/css; charset=utf-8' },
};

const PUBLIC_DIR = new URL('./public/', import.meta.url);
const MAX_COMMAND_LENGTH = 4_000;
/** Slack's limit for a message's text; the sandbox refuses longer messages as Slack's composer does. */
const MAX_MESSAGE_LENGTH = 40_000;
/** The slash commands manifest.yml declares: the only ones the sandbox's composer sends to the app. */
export const SANDBOX_COMMANDS = ['/order', '/order-keys', '/order-audit', '/order-subscribe'] as const;
/** The message shortcuts manifest.yml declares, shown in each message's "More actions" menu. */
export const MESSAGE_SHORTCUTS = [{ callbackId: 'lookup_orders', name: 'Look up orders' }] as const;

/**
 * An amount as a person types it into the balance control: digits, an optional decimal point and at
 * most two decimals (thousands separators allowed). Anything else (empty, "1e9", "12.345") is refused
 * with a message, rather than read as 0 or as something else.
 */
export function parseAmount(typed: unknown): { value: number } | { error: string } {
  const raw = typeof typed === 'string' ? typed.trim().replace(/[ _]/g, '') : '';
  if (raw === '') return { error: 'Enter an amount, for example 34870.55.' };
  // A comma only between groups of three digits ("1,000,000.50"); "34870,55" is not read as 3,487,055.
  const grouped = /^\d{1,3}(,\d{3})+(\.\d{1,2})?$/.test(raw);
  const text = grouped ? raw.replace(/,/g, '') : raw;
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(text))
    return {
      error: `“${String(typed).slice(0, 30)}” is not an amount: use digits and at most two decimals, for example 34870.55.`,
    };
  return { value: Number(text) };
}

export interface SandboxControls {
  /** Available funds (balance + credit limit) the simulated partner account reports. */
  available(): number;
  setAvailable(value: number): void;
  /** The "Partner history" control: new orders, completions, refunds, the partner API down or slow. */
  partner?: PartnerHistoryControls | undefined;
  /** The app's ORDER_LINK_TEMPLATE: a data table's link to an order opens its Work Object. */
  orderLinkTemplate?: string | undefined;
  /** Makes the app forget that Slack refused tables and charts (cli.ts says how and why). */
  forgetTablesRefusal?: (() => Promise<void>) | undefined;
}

export function attachSandboxPage(slack: FakeSlack, users: SandboxUser[], controls: SandboxControls): void {
  const known = (user: unknown): user is string =>
    typeof user === 'string' && users.some((u) => u.id === user);
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
    return true;
  };

  slack.fallback = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const asset = STATIC[url.pathname];
    if (req.method === 'GET' && asset) {
      const content = await readFile(new URL(asset.file, PUBLIC_DIR));
      // A strict policy: the page runs only its own files, so it works offline and loads nothing else.
      res.writeHead(200, {
        'content-type': asset.type,
        'cache-control': 'no-store',
        'content-security-policy':
          "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
      });
      res.end(content);
      return true;
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return true;
    }
    if (!url.pathname.startsWith('/sandbox/api/')) return false;
    const route = url.pathname.slice('/sandbox/api/'.length);
    let body: Record<string, unknown> = {};
    if (req.method === 'POST') {
      try {
        body = JSON.parse(raw || '{}') as Record<string, unknown>;
      } catch {
        return json(res, 400, { error: 'The request body is not JSON.' });
      }
    }
    // The "Run workflow step" panel (workflow-steps.ts).
    const step = await workflowStepRoute(slack, req.method ?? 'GET', route, body);
    if (step) return json(res, step.status, step.body);
    // Work Object previews and their flexpane (work-object-routes.ts).
    const entity = await workObjectRoute(
      slack,
      known,
      req.method ?? 'GET',
      route,
      body,
      controls.orderLinkTemplate,
    );
    if (entity) return json(res, entity.status, entity.body);
    // The "Ask Slackbot" panel: the app's tools, asked of its /mcp as Slack asks (slackbot-routes.ts).
    const slackbot = await slackbotRoute(slack, req.method ?? 'GET', route, body);
    if (slackbot) return json(res, slackbot.status, slackbot.body);
    switch (`${req.method} ${route}`) {
      case 'GET setup':
        return json(res, 200, {
          // Each person with whether they are of another organisation; each channel with its members.
          ...sandboxDirectory(slack, users),
          commands: SANDBOX_COMMANDS,
          shortcuts: MESSAGE_SHORTCUTS,
          unfurlDomains: slack.unfurlDomains,
          // The page's "now" (public/clock.js): this server's clock, also when it runs on another day.
          serverNow: Date.now(),
        });
      case 'GET state': {
        const user = url.searchParams.get('user');
        if (!known(user)) return json(res, 400, { error: 'Unknown user.' });
        const channel = url.searchParams.get('channel') ?? '';
        const messages = channel
          ? slack.visibleMessages(channel, user).map((m) => ({
              id: m.id,
              ts: m.ts,
              threadTs: m.threadTs ?? null,
              unfurls: m.unfurls ?? null,
              entities: m.entities ?? null,
              text: m.text,
              blocks: m.blocks,
              ephemeral: m.visibleTo !== undefined,
              author: m.author,
              via: m.via,
              files: m.files ?? [],
            }))
          : [];
        const modal = slack.modals.get(user)?.at(-1) ?? null;
        return json(res, 200, {
          messages,
          home: slack.views.get(user) ?? null,
          modal,
          panel: panelState(slack, user),
          available: controls.available(),
          partner: controls.partner?.state() ?? null,
          dataBlocksRefused: slack.dataBlocksRefusedOn().length > 0,
        });
      }
      // "Slack without tables and charts": the workspace refuses them in messages and views alike.
      // Switched off again, the app forgets the refusal this switch caused and sends tables at once.
      case 'POST data-blocks': {
        if (typeof body.refused !== 'boolean')
          return json(res, 400, { error: 'refused must be true or false.' });
        for (const surface of ['messages', 'views'] as const)
          slack.setDataBlocksRefused(surface, body.refused);
        if (!body.refused) await controls.forgetTablesRefusal?.();
        return json(res, 200, { refused: slack.dataBlocksRefusedOn().length > 0 });
      }
      case 'POST submit': {
        const { user, values } = body;
        if (!known(user) || typeof values !== 'object' || values === null)
          return json(res, 400, { error: 'A submission needs a user and values.' });
        const answer = await slack.submitView({
          user,
          values: values as Record<string, Record<string, Record<string, unknown>>>,
        });
        return json(res, 200, { status: answer.status, response: answer.body ?? null });
      }
      case 'POST close': {
        if (!known(body.user)) return json(res, 400, { error: 'Unknown user.' });
        slack.modals.set(body.user, (slack.modals.get(body.user) ?? []).slice(0, -1));
        slack.emit('change');
        return json(res, 200, {});
      }
      case 'POST balance': {
        const amount = parseAmount(body.available);
        if ('error' in amount) return json(res, 400, { error: amount.error });
        controls.setAvailable(amount.value);
        slack.emit('change');
        return json(res, 200, { available: controls.available() });
      }
      case 'GET partner':
      case 'POST partner/new-order':
      case 'POST partner/complete-oldest-pending':
      case 'POST partner/refund-newest-completed':
      case 'POST partner/down':
      case 'POST partner/slow': {
        const partner = controls.partner;
        if (!partner) return json(res, 404, { error: 'This sandbox has no partner history control.' });
        // Order Desk sees the change only when it next reads the partner; the page shows it now.
        const answer = (extra: Record<string, unknown>) => {
          slack.emit('change');
          return json(res, 200, { ...extra, partner: partner.state() });
        };
        if (route === 'partner') return json(res, 200, { partner: partner.state() });
        if (route === 'partner/new-order') return answer({ order: partner.newOrder() });
        if (route === 'partner/down' || route === 'partner/slow') {
          const name = route === 'partner/down' ? 'down' : 'slow';
          const on = body[name];
          if (typeof on !== 'boolean') return json(res, 400, { error: `${name} must be true or false.` });
          if (name === 'down') partner.setDown(on);
          else partner.setSlow(on);
          return answer({});
        }
        const done =
          route === 'partner/refund-newest-completed'
            ? partner.refundNewestCompleted()
            : partner.completeOldestPending();
        if (!done)
          return json(res, 409, {
            error:
              route === 'partner/refund-newest-completed'
                ? 'No order is COMPLETED.'
                : 'No order is PROCESSING or PENDING.',
          });
        return answer({ order: done.order, from: done.from });
      }
      case 'POST command': {
        const { user, channel, text } = body;
        if (
          !known(user) ||
          typeof channel !== 'string' ||
          typeof text !== 'string' ||
          text.length > MAX_COMMAND_LENGTH
        ) {
          return json(res, 400, { error: 'A command needs a known user, a channel and text.' });
        }
        const match = /^(\/[a-z-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
        const command = SANDBOX_COMMANDS.find((known) => known === match?.[1]);
        if (!command)
          return json(res, 400, { error: `Only ${SANDBOX_COMMANDS.join(', ')} are available here.` });
        const refused = refusedBySlack(slack, user, channel, 'command');
        if (refused) return json(res, 403, { error: refused });
        const sent = await slack.runCommand({
          user,
          channel,
          command,
          text: (match?.[2] ?? '').trim(),
        });
        return json(res, sent.status === 200 ? 200 : 502, { status: sent.status, ackMs: sent.ackMs });
      }
      case 'POST message': {
        const { user, channel, text, threadTs } = body;
        if (
          !known(user) ||
          typeof channel !== 'string' ||
          !slack.channels.some((c) => c.id === channel) ||
          typeof text !== 'string' ||
          text.trim() === '' ||
          text.length > MAX_MESSAGE_LENGTH ||
          (threadTs !== undefined && typeof threadTs !== 'string')
        )
          return json(res, 400, { error: 'A message needs a known user, a channel and text.' });
        const refused = refusedBySlack(slack, user, channel, 'message');
        if (refused) return json(res, 403, { error: refused });
        if (threadTs !== undefined) {
          const parent = slack.messages.find((m) => m.channel === channel && m.ts === threadTs && !m.deleted);
          if (!parent || parent.visibleTo !== undefined || parent.threadTs !== undefined)
            return json(res, 404, { error: 'That thread is gone.' });
        }
        // As in Slack: links on the app's unfurl domains send link_shared, and the app may unfurl them.
        const { message } = await slack.postMessage({ user, channel, text: text.trim(), threadTs });
        slack.emit('change');
        return json(res, 200, { id: message.id, ts: message.ts });
      }
      case 'POST shortcut': {
        const { user, messageId, callbackId } = body;
        const shortcut = MESSAGE_SHORTCUTS.find((s) => s.callbackId === callbackId);
        if (!known(user) || typeof messageId !== 'string' || !shortcut)
          return json(res, 400, { error: 'A shortcut needs a known user, a message and a shortcut.' });
        const message = slack.findMessage(messageId);
        // Slack offers message shortcuts on messages everyone sees, not on ephemeral ones.
        if (!message || message.deleted || message.visibleTo !== undefined)
          return json(res, 404, { error: 'That message is gone.' });
        const refused = refusedBySlack(slack, user, message.channel, 'shortcut');
        if (refused) return json(res, 403, { error: refused });
        const sent = await slack.runMessageShortcut({
          user,
          channel: message.channel,
          callbackId: shortcut.callbackId,
          messageText: message.text,
          messageTs: message.ts,
          author: message.author,
          threadTs: message.threadTs,
        });
        return json(res, 200, { status: sent.status, ackMs: sent.ackMs });
      }
      case 'POST click': {
        const { user, location, actionId, value } = body;
        if (!known(user) || typeof location !== 'string' || typeof actionId !== 'string')
          return json(res, 400, { error: 'A click needs a user, a location and an action.' });
        const wanted = typeof value === 'string' && value !== '' ? value : undefined;
        if (location === 'home') {
          const sent = await slack.clickHome({ user, actionId });
          return json(res, 200, { status: sent.status, ackMs: sent.ackMs });
        }
        const message = slack.findMessage(location);
        if (!message || message.deleted || (message.visibleTo !== undefined && message.visibleTo !== user))
          return json(res, 404, { error: 'That message is gone.' });
        if (!findButton(message.blocks, actionId, wanted))
          return json(res, 404, { error: 'That button is gone.' });
        const sent = await slack.click({ user, messageId: location, actionId, value: wanted });
        return json(res, 200, { status: sent.status, ackMs: sent.ackMs });
      }
      case 'POST home': {
        if (!known(body.user)) return json(res, 400, { error: 'Unknown user.' });
        const sent = await slack.openHome(body.user);
        return json(res, 200, { status: sent.status });
      }
      case 'GET events': {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        res.write(`: ${randomBytes(2).toString('hex')}\n\n`);
        // Changes come in bursts (several posts per command); one notice per tick is enough.
        let queued = false;
        const onChange = () => {
          if (queued) return;
          queued = true;
          setImmediate(() => {
            queued = false;
            res.write('event: change\ndata: {}\n\n');
          });
        };
        slack.on('change', onChange);
        req.on('close', () => slack.off('change', onChange));
        return true;
      }
      default:
        return json(res, 404, { error: 'No such sandbox endpoint.' });
    }
  };
}
