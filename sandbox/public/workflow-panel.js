import { api } from './api.js';
import { escapeHtml } from './render.js';

// "Run workflow step": what Workflow Builder does when a workflow reaches one of Order Desk's steps.
// Pick a step, fill its inputs (the person input starts as the user you are), run it: the app gets
// function_executed as from Slack, and the panel shows the step's outputs, or the message Slackbot
// would show the workflow's author. Self-contained: it adds its own button to the sidebar and its
// own dialog, and reads who you are from the page's user picker.

const panel = { steps: [], users: [], shown: false };
const $ = (id) => document.getElementById(id);

/** The user the page shows things for (the picker at the top left). */
function currentUser() {
  return $('user-picker')?.value || panel.users[0]?.id || '';
}

function selectedStep() {
  return panel.steps.find((step) => step.callbackId === $('wf-step').value) ?? panel.steps[0];
}

function inputField(input) {
  const id = `wf-input-${input.name}`;
  const label = `<span class="label">${escapeHtml(input.title)}${input.required ? '' : ' (optional)'}</span>`;
  const hint = input.hint || input.description;
  const help = hint ? `<span class="wf-hint">${escapeHtml(hint)}</span>` : '';
  if (input.type === 'slack#/types/user_id') {
    const options = panel.users
      .map(
        (u) =>
          `<option value="${escapeHtml(u.id)}"${u.id === currentUser() ? ' selected' : ''}>${escapeHtml(u.realName)}</option>`,
      )
      .join('');
    // "(empty)": what a step whose person input was never set up gets.
    return `<label class="field" for="${id}">${label}<select id="${id}" data-input="${escapeHtml(input.name)}">${options}<option value="">(empty)</option></select>${help}</label>`;
  }
  return `<label class="field" for="${id}">${label}<input id="${id}" type="text" data-input="${escapeHtml(input.name)}" autocomplete="off">${help}</label>`;
}

function renderInputs() {
  const step = selectedStep();
  $('wf-description').textContent = step?.description ?? '';
  $('wf-inputs').innerHTML = (step?.inputs ?? []).map(inputField).join('');
  $('wf-result').innerHTML = '';
}

function outputValue(output, value) {
  if (value === undefined) return '<span class="wf-unset">not set</span>';
  if (output.type === 'slack#/types/timestamp' && typeof value === 'number')
    return `${escapeHtml(new Date(value * 1000).toLocaleString())} <code>${escapeHtml(value)}</code>`;
  if (typeof value === 'number') return escapeHtml(value.toLocaleString('en'));
  return `<code>${escapeHtml(String(value))}</code>`;
}

function renderResult(step, answer) {
  const about = `<p class="wf-meta">function_execution_id <code>${escapeHtml(answer.functionExecutionId)}</code> · acknowledged in ${Math.round(answer.ackMs)} ms · ended with the ${answer.endedWith === 'workflow_token' ? 'workflow token' : 'bot token'}</p>`;
  if (answer.outcome === 'failed') {
    return `<div class="wf-outcome is-failed" data-outcome="failed"><strong>Step failed</strong> (functions.completeError). The workflow stops; Slackbot tells the workflow's author:
      <blockquote class="wf-error">${escapeHtml(answer.error)}</blockquote></div>${about}`;
  }
  const rows = step.outputs
    .map(
      (output) =>
        `<tr data-output="${escapeHtml(output.name)}"><th scope="row">${escapeHtml(output.title)} <code>${escapeHtml(output.name)}</code></th><td>${outputValue(output, answer.outputs[output.name])}</td></tr>`,
    )
    .join('');
  return `<div class="wf-outcome is-completed" data-outcome="completed"><strong>Step completed</strong> (functions.completeSuccess). The next steps of the workflow can use these outputs:</div>
    <table class="wf-outputs"><tbody>${rows}</tbody></table>${about}`;
}

async function runStep(event) {
  event.preventDefault();
  const step = selectedStep();
  if (!step) return;
  const inputs = {};
  for (const field of $('wf-inputs').querySelectorAll('[data-input]'))
    inputs[field.dataset.input] = field.value;
  const button = $('wf-run');
  button.disabled = true;
  $('wf-result').innerHTML = '<p class="wf-meta">Running…</p>';
  try {
    const answer = await api('workflow/run', { callbackId: step.callbackId, inputs });
    $('wf-result').innerHTML = renderResult(step, answer);
  } catch (error) {
    $('wf-result').innerHTML = `<p class="field-error">Not run: ${escapeHtml(error.message)}</p>`;
  } finally {
    button.disabled = false;
  }
}

/** Opens with fresh inputs: the person input starts as whoever you are now. */
function open() {
  $('wf-panel').hidden = false;
  panel.shown = true;
  renderInputs();
  $('wf-step').focus();
}

function close() {
  $('wf-panel').hidden = true;
  panel.shown = false;
  $('wf-open').focus();
}

async function init() {
  const [{ steps }, { users }] = await Promise.all([api('workflow/steps'), api('setup')]);
  panel.steps = steps;
  panel.users = users;
  if (steps.length === 0) return;

  const opener = document.createElement('button');
  opener.type = 'button';
  opener.id = 'wf-open';
  opener.className = 'wf-open';
  opener.textContent = '⚙️ Run workflow step';
  $('nav-home').after(opener);

  const box = document.createElement('div');
  box.id = 'wf-panel';
  box.className = 'modal-backdrop';
  box.hidden = true;
  box.innerHTML = `<form class="modal wf-panel" id="wf-form" role="dialog" aria-labelledby="wf-title" autocomplete="off">
    <h2 id="wf-title">Run workflow step</h2>
    <p class="wf-hint">What happens when a workflow built in Workflow Builder reaches one of Order Desk's steps. Order Desk checks the person input, not who you are here.</p>
    <label class="field" for="wf-step"><span class="label">Step</span>
      <select id="wf-step">${steps.map((s) => `<option value="${escapeHtml(s.callbackId)}">${escapeHtml(s.title)}</option>`).join('')}</select>
    </label>
    <p class="wf-hint" id="wf-description"></p>
    <div id="wf-inputs" class="wf-inputs"></div>
    <div class="modal-actions"><button type="button" id="wf-close">Close</button>
      <button type="submit" class="primary" id="wf-run">Run step</button></div>
    <section id="wf-result" class="wf-result" aria-live="polite"></section>
  </form>`;
  document.body.append(box);

  opener.addEventListener('click', open);
  $('wf-close').addEventListener('click', close);
  $('wf-step').addEventListener('change', renderInputs);
  $('wf-form').addEventListener('submit', runStep);
  box.addEventListener('click', (event) => {
    if (event.target === box) close();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && panel.shown) close();
  });
  document.body.dataset.workflowPanel = 'ready';
}

void init();
