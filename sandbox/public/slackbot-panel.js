import { api } from './api.js';
import { sandboxNow } from './clock.js';
import { escapeHtml, renderBlocks } from './render.js';

// "Ask Slackbot": what Slackbot does when a person asks it something Order Desk's tools answer. Pick a
// tool (listed by the app's own POST /mcp), fill its arguments (a form built from its input schema),
// call it: the sandbox server asks the app as Slack does, signed and as the person you are, and the
// panel shows the words Slackbot's model reads and the Block Kit the person sees. Self-contained like
// the workflow panel: its own dialog; who you are comes from the page's picker.

const panel = { tools: [], users: [], channels: [], shown: false };
const $ = (id) => document.getElementById(id);

function currentUser() {
  return $('user-picker')?.value || panel.users[0]?.id || '';
}

function selectedTool() {
  return panel.tools.find((tool) => tool.name === $('sb-tool').value) ?? panel.tools[0];
}

/** One input per argument of the tool's input schema: text, or a checkbox per value of a list. */
function argumentField(name, schema, required) {
  const label = `<span class="label">${escapeHtml(name)}${required ? '' : ' (optional)'}</span>`;
  const help = schema.description ? `<span class="wf-hint">${escapeHtml(schema.description)}</span>` : '';
  if (schema.type === 'array' && Array.isArray(schema.items?.enum)) {
    const boxes = schema.items.enum
      .map(
        (value) =>
          `<label class="sim-toggle"><input type="checkbox" data-arg="${escapeHtml(name)}" data-kind="list" value="${escapeHtml(value)}"> ${escapeHtml(value)}</label>`,
      )
      .join('');
    return `<fieldset class="field sb-list">${label}${boxes}${help}</fieldset>`;
  }
  const kind =
    schema.type === 'number' || schema.type === 'integer'
      ? 'number'
      : schema.type === 'string'
        ? 'string'
        : 'json';
  const id = `sb-arg-${name}`;
  const placeholder = kind === 'json' ? ' placeholder="JSON"' : '';
  return `<label class="field" for="${id}">${label}<input id="${id}" type="text" data-arg="${escapeHtml(name)}" data-kind="${kind}"${placeholder}>${help}</label>`;
}

function renderArguments() {
  const tool = selectedTool();
  $('sb-description').textContent = tool?.description ?? '';
  const schema = tool?.inputSchema ?? {};
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, property]) =>
    argumentField(name, property, required.has(name)),
  );
  $('sb-arguments').innerHTML =
    fields.length > 0 ? fields.join('') : '<p class="wf-hint">This tool takes no arguments.</p>';
  $('sb-result').innerHTML = '';
}

/**
 * The arguments as Slackbot's model would send them; a field left empty is left out. What does not
 * read as its type is sent as typed, so the app's schema refuses it in words, as it would refuse a model.
 */
function readArguments() {
  const args = {};
  for (const input of $('sb-arguments').querySelectorAll('[data-arg]')) {
    const name = input.dataset.arg;
    if (input.dataset.kind === 'list') {
      if (input.checked) args[name] = [...(args[name] ?? []), input.value];
      continue;
    }
    const typed = input.value.trim();
    if (typed === '') continue;
    if (input.dataset.kind === 'number') args[name] = Number.isFinite(Number(typed)) ? Number(typed) : typed;
    else if (input.dataset.kind === 'json') {
      try {
        args[name] = JSON.parse(typed);
      } catch {
        args[name] = typed;
      }
    } else args[name] = typed;
  }
  return args;
}

function renderAnswer(answer) {
  const context = { users: panel.users, channels: panel.channels, now: sandboxNow() };
  const outcome = answer.isError
    ? '<div class="wf-outcome is-failed" data-outcome="error"><strong>Tool error</strong> (isError): Slackbot tells the person in its own words.</div>'
    : '<div class="wf-outcome is-completed" data-outcome="answered"><strong>Answered</strong></div>';
  const blocks =
    answer.blockErrors.length > 0
      ? `<p class="field-error">Slack would not show these blocks: ${escapeHtml(answer.blockErrors.join('; '))}</p>`
      : answer.blocks.length > 0
        ? `<div class="sb-blocks">${renderBlocks(answer.blocks, context, 'slackbot')}</div>`
        : '<p class="wf-hint">No Block Kit: Slackbot shows its own words.</p>';
  return `${outcome}
    <h3 class="sb-heading">What Slackbot’s model reads</h3><pre class="sb-text" id="sb-text">${escapeHtml(answer.text)}</pre>
    <h3 class="sb-heading">What the person sees</h3><div id="sb-blocks">${blocks}</div>`;
}

/** One tools/call as the person you are now; its answer replaces the last one, as Slack replaces it. */
async function ask(name, args) {
  const button = $('sb-call');
  button.disabled = true;
  $('sb-result').innerHTML = '<p class="wf-meta">Asking Order Desk…</p>';
  try {
    const answer = await api('slackbot/call', { user: currentUser(), tool: name, arguments: args });
    $('sb-result').innerHTML = renderAnswer(answer);
    $('sb-result').dataset.tool = name;
  } catch (error) {
    $('sb-result').innerHTML = `<p class="field-error">Not asked: ${escapeHtml(error.message)}</p>`;
  } finally {
    button.disabled = false;
  }
}

function callTool(event) {
  event.preventDefault();
  const tool = selectedTool();
  if (tool) void ask(tool.name, readArguments());
}

/**
 * A button in an answer, as Slackbot runs it: `tool:<name>` is a call of that tool with its value's
 * JSON as the arguments (checked by the app as any call); Slack strips any other action, so it does
 * nothing here either.
 */
function clickInAnswer(event) {
  const button = event.target.closest('button.block-button');
  const tool = /^tool:(\w+)$/.exec(button?.dataset.actionId ?? '')?.[1];
  if (!button || !tool) return;
  event.preventDefault();
  let args;
  try {
    args = JSON.parse(button.dataset.value || '{}');
  } catch {
    return;
  }
  void ask(tool, args);
}

/** Opens with the tools the app lists to the person you are now. */
async function open() {
  $('sb-panel').hidden = false;
  panel.shown = true;
  $('sb-as').textContent = panel.users.find((u) => u.id === currentUser())?.realName ?? currentUser();
  $('sb-tool').innerHTML = '';
  $('sb-arguments').innerHTML = '';
  $('sb-description').textContent = 'Asking Order Desk for its tools…';
  $('sb-result').innerHTML = '';
  try {
    const { tools } = await api('slackbot/tools', { user: currentUser() });
    panel.tools = tools;
    if (tools.length === 0) {
      // Order Desk lists a person only the tools they may call: a guest or another organisation's, none.
      $('sb-description').textContent =
        'Order Desk lists no tools to this person: they may see no order data, so Slackbot offers them none.';
      $('sb-call').disabled = true;
      return;
    }
    $('sb-call').disabled = false;
    $('sb-tool').innerHTML = tools
      .map(
        (t) =>
          `<option value="${escapeHtml(t.name)}">${escapeHtml(t.title ?? t.name)} (${escapeHtml(t.name)})</option>`,
      )
      .join('');
    renderArguments();
    $('sb-tool').focus();
  } catch (error) {
    $('sb-description').textContent = `No tools: ${error.message}`;
  }
}

function close() {
  $('sb-panel').hidden = true;
  panel.shown = false;
  $('sb-open').focus();
}

async function init() {
  const { users, channels } = await api('setup');
  panel.users = users;
  panel.channels = channels;

  // The sidebar's button is in the page (index.html), so it keeps its place whichever panel loads first.
  const opener = $('sb-open');
  opener.hidden = false;

  const box = document.createElement('div');
  box.id = 'sb-panel';
  box.className = 'modal-backdrop';
  box.hidden = true;
  box.innerHTML = `<form class="modal wf-panel" id="sb-form" role="dialog" aria-labelledby="sb-title" autocomplete="off">
    <h2 id="sb-title">Ask Slackbot</h2>
    <p class="wf-hint">What Slackbot does when a person asks it about orders: it calls one of Order Desk's tools (<code>POST /mcp</code>, signed as Slack signs), as <strong id="sb-as"></strong>. Order Desk decides what that person may see.</p>
    <label class="field" for="sb-tool"><span class="label">Tool</span><select id="sb-tool"></select></label>
    <p class="wf-hint" id="sb-description"></p>
    <div id="sb-arguments" class="wf-inputs"></div>
    <div class="modal-actions"><button type="button" id="sb-close">Close</button>
      <button type="submit" class="primary" id="sb-call">Call</button></div>
    <section id="sb-result" class="wf-result" aria-live="polite"></section>
  </form>`;
  document.body.append(box);

  opener.addEventListener('click', () => void open());
  $('sb-close').addEventListener('click', close);
  $('sb-tool').addEventListener('change', renderArguments);
  $('sb-form').addEventListener('submit', callTool);
  $('sb-result').addEventListener('click', clickInAnswer);
  box.addEventListener('click', (event) => {
    if (event.target === box) close();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && panel.shown) close();
  });
  document.body.dataset.slackbotPanel = 'ready';
}

void init();
