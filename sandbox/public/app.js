import { api } from './api.js';
import { followServerClock, sandboxNow } from './clock.js';
import { attachDataBlocksSwitch, showDataBlocksSwitch } from './data-blocks-switch.js';
import { attachDataTableControls } from './data-table-controls.js';
import { checkStateValues, modalKey, readStateValues, renderModalView } from './modal.js';
import { escapeHtml, renderBlocks, renderMessageBody } from './render.js';
// The "Ask Slackbot" panel looks after itself (its dialog, its calls); it loads with the page.
import './slackbot-panel.js';
import { renderFlexpane, renderUnfurls } from './work-objects.js';

// The sandbox page: pick a user and a channel, type commands, click buttons, open the Home tab. All of
// it goes to the sandbox server, which forwards it to the app exactly as Slack would.

const state = {
  users: [],
  channels: [],
  commands: [],
  shortcuts: [],
  /** The app's unfurl domains: a table's link there opens the Work Object flexpane, as an unfurl's. */
  unfurlDomains: [],
  user: '',
  view: '',
  data: null,
  /** The thread open beside the channel (its parent's ts), as in Slack's thread pane. */
  thread: null,
  /** The message whose "More actions" menu is open: kept across repaints. */
  menuFor: null,
};
const $ = (id) => document.getElementById(id);

function userName(id) {
  return state.users.find((u) => u.id === id)?.name ?? id;
}

/** The person picked: a person of another organisation (Slack Connect) gets no app shortcuts. */
function currentUser() {
  return state.users.find((u) => u.id === state.user);
}

/** The channels (not DMs) the person is in: Slack lists no other, as for Rex, who is in only one. */
function channelsOf(userId) {
  return state.channels.filter((c) => !c.id.startsWith('D') && (c.members ?? [userId]).includes(userId));
}

/** `view` if the person may see it, else their first channel (their DM for a DM: everyone has one). */
function viewFor(userId, view) {
  if (view === 'home') return view;
  if (view.startsWith('D')) return `D${userId.slice(1)}`;
  const theirs = channelsOf(userId);
  return theirs.some((c) => c.id === view) ? view : (theirs[0]?.id ?? `D${userId.slice(1)}`);
}

function context() {
  return {
    users: state.users,
    channels: state.channels,
    unfurlDomains: state.unfurlDomains,
    now: sandboxNow(),
  };
}

function renderSidebar() {
  $('user-picker').innerHTML = state.users
    .map(
      (u) =>
        `<option value="${escapeHtml(u.id)}"${u.id === state.user ? ' selected' : ''}>${escapeHtml(u.realName)}</option>`,
    )
    .join('');
  $('user-role').textContent = state.users.find((u) => u.id === state.user)?.role ?? '';
  const navItem = (c, label) =>
    `<button type="button" class="nav-item${state.view === c.id ? ' active' : ''}" data-target="${escapeHtml(c.id)}">${label}</button>`;
  // Each user sees only their own DM with Order Desk.
  $('dm-list').innerHTML = state.channels
    .filter((c) => c.id === `D${state.user.slice(1)}`)
    .map((c) => navItem(c, `💬 ${escapeHtml(c.name)}`))
    .join('');
  $('channel-list').innerHTML = channelsOf(state.user)
    .map(
      (c) =>
        `<button type="button" class="nav-item${state.view === c.id ? ' active' : ''}" data-target="${escapeHtml(c.id)}"># ${escapeHtml(c.name)}</button>`,
    )
    .join('');
  $('nav-home').classList.toggle('active', state.view === 'home');
}

/** One message as Slack shows it; `actions` adds the hover toolbar (reply, More actions). */
function renderMessage(m, { replies = [], inThread = false } = {}) {
  const fromApp = m.via !== 'command' && m.via !== 'user';
  const author = fromApp ? 'Order Desk' : userName(m.author);
  const badge = m.ephemeral ? '<span class="ephemeral">Only visible to you</span>' : '';
  const files = (m.files ?? [])
    .map(
      (f) =>
        `<a class="file" href="${escapeHtml(f.url)}" download="${escapeHtml(f.name)}">📄 ${escapeHtml(f.title)}</a>`,
    )
    .join('');
  // A person's own words are mrkdwn too, but a command is shown as typed.
  // Unfurls (chat.unfurl) show under the message, as Slack shows them, for everyone who sees it: a
  // Work Object preview where the unfurl carries an entity, else the classic blocks.
  const unfurls = renderUnfurls(m, context(), (blocks) => renderBlocks(blocks, context(), m.id));
  const body =
    m.via === 'command'
      ? `<div class="block section"><div class="section-body"><div class="section-text">${escapeHtml(m.text)}</div></div></div>`
      : renderMessageBody(m, context(), m.id) + files + unfurls;
  const replyCount =
    replies.length > 0
      ? `<button type="button" class="thread-link" data-thread="${escapeHtml(m.ts)}">${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}</button>`
      : '';
  return `<article class="message${m.ephemeral ? ' is-ephemeral' : ''}${state.menuFor === m.id ? ' menu-open' : ''}" data-message-id="${escapeHtml(m.id)}">
        <div class="avatar${fromApp ? ' app' : ''}">${fromApp ? 'OD' : escapeHtml(author.slice(0, 2).toUpperCase())}</div>
        <div class="message-body"><div class="meta"><strong>${escapeHtml(author)}</strong>${fromApp ? ' <span class="app-tag">APP</span>' : ''} ${badge}</div>${body}${replyCount}</div>
        ${m.ephemeral ? '' : messageActions(m, inThread)}
      </article>`;
}

/**
 * The toolbar Slack shows over a message on hover: reply in thread (not inside a thread), and
 * "More actions" with the app's message shortcuts. Ephemeral messages have none, as in Slack.
 */
function messageActions(m, inThread) {
  const reply = inThread
    ? ''
    : `<button type="button" class="msg-action" data-thread="${escapeHtml(m.ts)}" aria-label="Reply in thread" title="Reply in thread">💬</button>`;
  // Slack offers an app's shortcuts only to the workspace that installed it, not over Slack Connect.
  const items = currentUser()?.ofAnotherOrganisation
    ? '<p class="menu-note">No Order Desk shortcuts: Slack offers them only to the workspace that installed it.</p>'
    : state.shortcuts
        .map(
          (s) =>
            `<button type="button" role="menuitem" class="menu-item" data-shortcut="${escapeHtml(s.callbackId)}" data-message="${escapeHtml(m.id)}">${escapeHtml(s.name)} <span class="menu-app">Order Desk</span></button>`,
        )
        .join('');
  const menu =
    state.menuFor === m.id ? `<div class="menu" role="menu" aria-label="More actions">${items}</div>` : '';
  return `<div class="message-actions">${reply}<button type="button" class="msg-action" data-more="${escapeHtml(m.id)}" aria-label="More actions" title="More actions" aria-haspopup="menu" aria-expanded="${state.menuFor === m.id}">⋯</button>${menu}</div>`;
}

/** A channel's messages: top-level ones, each with its reply count; replies live in the thread pane. */
function renderMessages(messages) {
  if (messages.length === 0)
    return '<p class="empty">No messages yet. Type a message or a command below.</p>';
  const replies = new Map();
  for (const m of messages) {
    if (m.threadTs) replies.set(m.threadTs, [...(replies.get(m.threadTs) ?? []), m]);
  }
  return messages
    .filter((m) => !m.threadTs)
    .map((m) => renderMessage(m, { replies: replies.get(m.ts) ?? [] }))
    .join('');
}

/** The thread pane: the parent, its replies, and a reply box. */
function renderThread(messages) {
  const pane = $('thread');
  const parent = state.thread && messages.find((m) => m.ts === state.thread && !m.threadTs);
  document.querySelector('.workspace').classList.toggle('with-thread', Boolean(parent));
  pane.hidden = !parent;
  if (!parent) {
    state.thread = null;
    // Nothing of a closed thread stays in the page (hidden messages would still match a search).
    $('thread-messages').innerHTML = '';
    return;
  }
  const replies = messages.filter((m) => m.threadTs === parent.ts);
  const box = $('thread-messages');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.innerHTML = `${renderMessage(parent, { inThread: true })}<div class="thread-count">${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}</div>${replies
    .map((m) => renderMessage(m, { inThread: true }))
    .join('')}`;
  if (atBottom) box.scrollTop = box.scrollHeight;
}

/** The viewer's open Work Object flexpane, where the thread pane goes (it takes the thread's place). */
function renderPanel(panel) {
  const pane = $('flexpane');
  pane.hidden = !panel;
  pane.innerHTML = panel ? renderFlexpane(panel, context()) : '';
  if (!panel) return;
  $('thread').hidden = true;
  document.querySelector('.workspace').classList.add('with-thread');
}

let latestRefresh = 0;
/** What the partner history control last did, shown above the partner's state. */
let partnerMessage = '';

function renderPartner(partner) {
  const box = $('partner-control');
  box.hidden = !partner;
  if (!partner) return;
  $('partner-down').checked = partner.down;
  $('partner-slow').checked = partner.slow;
  const answering = partner.slow ? 'answering, 3 s late' : 'answering';
  const down = `down (every request answers 503${partner.slow ? ', 3 s late' : ''})`;
  const summary = `${partner.orders.toLocaleString('en')} orders, ${partner.pending.toLocaleString('en')} pending; the partner API is ${partner.down ? down : answering}.`;
  $('partner-status').textContent = partnerMessage ? `${partnerMessage} ${summary}` : summary;
  $('partner-status').classList.toggle('is-down', partner.down || partner.slow);
}

async function partnerAction(control, path, body, describe) {
  control.disabled = true;
  try {
    const answer = await api(path, body);
    partnerMessage = describe(answer);
    renderPartner(answer.partner);
  } catch (error) {
    partnerMessage = `Not done: ${error.message}`;
    renderPartner(state.data?.partner ?? null);
  } finally {
    control.disabled = false;
  }
}

const orderName = (order) => `${order.id} (${order.reference_id})`;

let shownModal = '';

/** Runs a message shortcut (⋯ More actions) on a message; the answer arrives as in Slack. */
async function runShortcut(callbackId, messageId) {
  try {
    const result = await api('shortcut', { user: state.user, messageId, callbackId });
    $('composer-hint').textContent =
      `Ran the shortcut; the app acknowledged in ${Math.round(result.ackMs)} ms.`;
  } catch (error) {
    $('composer-hint').textContent = `Not run: ${error.message}`;
  }
}

/**
 * The user's newest modal as a dialog (modal.js draws it and reads it back in Slack's shapes); drawn
 * again only when the fake Slack's record of it changes (a response_action update, push or clear).
 */
function renderModal(modal) {
  const box = $('modal');
  if (!modal) {
    box.hidden = true;
    box.innerHTML = '';
    shownModal = '';
    return;
  }
  if (shownModal === modalKey(modal)) return;
  shownModal = modalKey(modal);
  const modalContext = { ...context(), user: state.user };
  box.innerHTML = renderModalView(modal, modalContext);
  box.hidden = false;
  const form = $('modal-form');
  const showErrors = (errors) => {
    for (const slot of form.querySelectorAll('.field-error'))
      slot.textContent = errors[slot.dataset.errorFor] ?? '';
  };
  $('modal-cancel').addEventListener('click', () => void api('close', { user: state.user }));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const values = readStateValues(modal.view, new FormData(form), modalContext);
    // What Slack's client refuses itself (a required field left empty, a number out of range) is never sent.
    const refused = checkStateValues(modal.view, values);
    showErrors(refused);
    if (Object.keys(refused).length > 0) return;
    const submit = form.querySelector('button[type="submit"]');
    if (submit) submit.disabled = true;
    try {
      const answer = await api('submit', { user: state.user, values });
      if (answer.status !== 200) {
        showErrors({
          '': `Order Desk answered HTTP ${answer.status}; Slack would say “We had some trouble connecting. Try again?”`,
        });
        return;
      }
      showErrors(answer.response?.response_action === 'errors' ? (answer.response.errors ?? {}) : {});
    } catch (error) {
      showErrors({ '': `Not sent: ${error.message}` });
    } finally {
      if (submit) submit.disabled = false;
    }
  });
}

async function refresh() {
  const onHome = state.view === 'home';
  // Refreshes overlap (a change notice while another is in flight): only the newest may paint.
  const ticket = ++latestRefresh;
  const data = await api(
    `state?user=${encodeURIComponent(state.user)}&channel=${encodeURIComponent(onHome ? '' : state.view)}`,
  );
  if (ticket !== latestRefresh) return;
  state.data = data;
  renderModal(data.modal);
  if (document.activeElement !== $('available-input'))
    $('available-input').value = String(data.available ?? '');
  renderPartner(data.partner);
  showDataBlocksSwitch(data.dataBlocksRefused);
  // A data table's filter box keeps the typing person's focus through a repaint.
  const typing = document.activeElement?.classList?.contains('dt-filter')
    ? document.activeElement.closest('.data-table')?.dataset.tableKey
    : undefined;
  // Who the painted page is for: a test (or a curious newcomer) can tell a repaint has happened.
  document.body.dataset.shownUser = state.user;
  document.body.dataset.shownView = state.view;
  renderSidebar();
  const channelName = state.channels.find((c) => c.id === state.view)?.name ?? '';
  // As in Slack: a channel is "# name", a DM the name of whom (here: the app) it is with.
  $('main-title').textContent = onHome
    ? 'Order Desk — Home'
    : state.view.startsWith('D')
      ? channelName
      : `# ${channelName}`;
  $('messages').hidden = onHome;
  $('composer').hidden = onHome;
  $('home').hidden = !onHome;
  if (onHome) {
    $('home').innerHTML = data.home
      ? renderBlocks(data.home.blocks, context(), 'home')
      : '<p class="empty">Opening the Home tab…</p>';
  } else {
    const box = $('messages');
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    box.innerHTML = renderMessages(data.messages);
    if (atBottom) box.scrollTop = box.scrollHeight;
  }
  renderThread(onHome ? [] : data.messages);
  renderPanel(onHome ? null : data.panel);
  if (typing !== undefined) {
    const box = [...document.querySelectorAll('.data-table')].find((t) => t.dataset.tableKey === typing);
    box?.querySelector('.dt-filter')?.focus();
  }
}

async function show(view) {
  if (view !== state.view) {
    state.thread = null;
    state.menuFor = null;
  }
  state.view = view;
  localStorage.setItem('sandbox.view', view);
  if (view === 'home') await api('home', { user: state.user });
  await refresh();
}

/**
 * Clicks on Work Objects: a preview opens its flexpane (the app gets entity_details_requested for
 * the viewer), a panel's button reaches the app as Slack's entity_detail click, ✕ closes the panel.
 */
async function workObjectClick(event) {
  const preview = event.target.closest('.wo-preview');
  const action = event.target.closest('.wo-action');
  const close = event.target.closest('#flexpane-close');
  // A data table's link to an order page: its Work Object, as Slack opens one from a table cell.
  const link = event.target.closest('.wo-link');
  if (!preview && !action && !close && !link) return false;
  try {
    if (close) await api('entity/close', { user: state.user });
    else if (link) {
      state.thread = null;
      await api('entity/open-link', {
        user: state.user,
        location: link.dataset.location,
        url: link.dataset.woLink,
      });
    } else if (preview) {
      state.thread = null;
      await api('entity/open', {
        user: state.user,
        messageId: preview.dataset.woMessage,
        url: preview.dataset.woUrl,
      });
    } else {
      // A link button opens in the browser; the app is told of the click, as Slack tells it.
      const sent = api('entity/action', {
        user: state.user,
        actionId: action.dataset.actionId,
        value: action.dataset.value,
      });
      if (action.tagName === 'A') void sent.catch(() => undefined);
      else await sent;
    }
  } catch (error) {
    $('composer-hint').textContent = `Not done: ${error.message}`;
  }
  return true;
}

async function init() {
  const data = await api('setup');
  followServerClock(data.serverNow);
  state.users = data.users;
  state.channels = data.channels;
  state.commands = data.commands;
  state.shortcuts = data.shortcuts;
  state.unfurlDomains = data.unfurlDomains ?? [];
  attachDataTableControls(document.body);
  attachDataBlocksSwitch();
  state.user = localStorage.getItem('sandbox.user') ?? data.users[0].id;
  if (!state.users.some((u) => u.id === state.user)) state.user = data.users[0].id;
  const savedView = localStorage.getItem('sandbox.view');
  state.view = viewFor(
    state.user,
    savedView && (savedView === 'home' || state.channels.some((c) => c.id === savedView))
      ? savedView
      : data.channels[0].id,
  );

  // The hint under the message box as a newcomer first reads it: what the last person did is theirs.
  const firstHint = $('composer-hint').innerHTML;
  $('user-picker').addEventListener('change', async (event) => {
    state.user = event.target.value;
    localStorage.setItem('sandbox.user', state.user);
    $('composer-hint').innerHTML = firstHint;
    $('thread-hint').textContent = '';
    // Each person has their own DM with Order Desk: from one DM to the next person's; from a channel
    // the next person is not in (Rex is in one only), to one of theirs.
    await show(viewFor(state.user, state.view));
  });
  document.body.addEventListener('click', async (event) => {
    // Before any wait: the browser must not follow a Work Object link itself.
    if (event.target.closest('.wo-link')) event.preventDefault();
    const nav = event.target.closest('.nav-item');
    if (nav) return show(nav.dataset.target);
    const more = event.target.closest('[data-more]');
    const shortcut = event.target.closest('.menu-item');
    // Any click closes an open menu, as in Slack; "More actions" opens (or closes) its own.
    const menuWas = state.menuFor;
    state.menuFor = more && menuWas !== more.dataset.more ? more.dataset.more : null;
    if (more || menuWas) await refresh();
    if (more) return;
    if (shortcut) return runShortcut(shortcut.dataset.shortcut, shortcut.dataset.message);
    if (await workObjectClick(event)) return;
    const thread = event.target.closest('[data-thread]');
    if (thread) {
      // A thread takes the side pane's place: an open Work Object panel closes.
      if (state.data?.panel) await api('entity/close', { user: state.user });
      state.thread = thread.dataset.thread;
      await refresh();
      $('thread-box').focus();
      return;
    }
    if (event.target.closest('#thread-close')) {
      state.thread = null;
      return refresh();
    }
    const button = event.target.closest('.block-button');
    if (!button) return;
    if (button.tagName === 'A') {
      // The browser opens the link; the app is told of the click, as Slack tells it.
      void api('click', {
        user: state.user,
        location: button.dataset.location,
        actionId: button.dataset.actionId,
      }).catch(() => undefined);
      return;
    }
    button.disabled = true;
    try {
      await api('click', {
        user: state.user,
        location: button.dataset.location,
        actionId: button.dataset.actionId,
        value: button.dataset.value,
      });
    } catch (error) {
      $('composer-hint').textContent = `Click failed: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
  // An option chosen in a menu (static_select): the block action goes to the app as Slack sends it,
  // through the click path, with the option's value (the server finds the option and sends a
  // static_select action with selected_option).
  document.body.addEventListener('change', async (event) => {
    const menu = event.target.closest?.('.block-select');
    if (!menu || menu.value === '') return;
    menu.disabled = true;
    try {
      await api('click', {
        user: state.user,
        location: menu.dataset.location,
        actionId: menu.dataset.actionId,
        value: menu.value,
      });
    } catch (error) {
      $('composer-hint').textContent = `Choice failed: ${error.message}`;
    } finally {
      menu.disabled = false;
    }
  });
  // A Work Object preview is a button to the keyboard too.
  document.body.addEventListener('keydown', (event) => {
    if ((event.key === 'Enter' || event.key === ' ') && event.target.classList?.contains('wo-preview')) {
      event.preventDefault();
      event.target.click();
    }
  });
  $('balance-control').addEventListener('submit', async (event) => {
    event.preventDefault();
    // The server checks the amount (digits, at most two decimals) and says what is wrong with it.
    try {
      const answer = await api('balance', { available: $('available-input').value });
      $('balance-status').textContent =
        `Available funds set to ${answer.available.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}.`;
      $('balance-status').classList.remove('is-error');
      $('available-input').blur();
    } catch (error) {
      $('balance-status').textContent = error.message;
      $('balance-status').classList.add('is-error');
    }
  });
  $('partner-new-order').addEventListener('click', (event) =>
    partnerAction(
      event.currentTarget,
      'partner/new-order',
      {},
      (a) => `New order ${orderName(a.order)}: PROCESSING.`,
    ),
  );
  $('partner-complete').addEventListener('click', (event) =>
    partnerAction(
      event.currentTarget,
      'partner/complete-oldest-pending',
      {},
      (a) => `${orderName(a.order)}: ${a.from} → COMPLETED.`,
    ),
  );
  $('partner-refund').addEventListener('click', (event) =>
    partnerAction(
      event.currentTarget,
      'partner/refund-newest-completed',
      {},
      (a) => `${orderName(a.order)}: COMPLETED → REFUNDED.`,
    ),
  );
  $('partner-down').addEventListener('change', (event) =>
    partnerAction(event.currentTarget, 'partner/down', { down: event.currentTarget.checked }, (a) =>
      a.partner.down ? 'Partner API down.' : 'Partner API back.',
    ),
  );
  $('partner-slow').addEventListener('change', (event) =>
    partnerAction(event.currentTarget, 'partner/slow', { slow: event.currentTarget.checked }, (a) =>
      a.partner.slow ? 'Partner API slow.' : 'Partner API fast again.',
    ),
  );
  $('composer').addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = $('message-box').value.trim();
    if (!text) return;
    if (text.startsWith('/')) {
      const name = text.split(/\s/)[0];
      if (!state.commands.includes(name)) {
        $('composer-hint').textContent =
          `${name} is not a command here: Order Desk's commands are ${state.commands.join(', ')}.`;
        return;
      }
      $('message-box').value = '';
      try {
        const result = await api('command', { user: state.user, channel: state.view, text });
        $('composer-hint').textContent =
          `Sent ${name}; the app acknowledged in ${Math.round(result.ackMs)} ms.`;
      } catch (error) {
        // The app's failure, or Slack's refusal (a person of another organisation has no commands).
        $('composer-hint').textContent = `Not sent: ${error.message}`;
      }
      return;
    }
    $('message-box').value = '';
    try {
      await api('message', { user: state.user, channel: state.view, text });
      $('composer-hint').textContent =
        'Posted. Hover over a message and open ⋯ More actions to run Look up orders on it.';
    } catch (error) {
      $('composer-hint').textContent = `Not posted: ${error.message}`;
    }
  });
  $('thread-composer').addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = $('thread-box').value.trim();
    if (!text || !state.thread) return;
    if (text.startsWith('/')) {
      // As in Slack: slash commands are not sent from a thread.
      $('thread-hint').textContent = 'Slash commands do not work in threads: type them in the channel.';
      return;
    }
    $('thread-box').value = '';
    try {
      await api('message', { user: state.user, channel: state.view, text, threadTs: state.thread });
      $('thread-hint').textContent = '';
    } catch (error) {
      $('thread-hint').textContent = `Not posted: ${error.message}`;
    }
  });
  // The server says when anything changed; the page then reads the state again.
  const events = new EventSource('/sandbox/api/events');
  events.addEventListener('change', () => void refresh());
  await show(state.view);
  document.body.dataset.ready = 'true';
}

void init();
