import { EMOJI, escapeHtml } from './render.js';

// Slack's data table block (`data_table`) as the sandbox page shows it: its caption, a filter box,
// the header (click to sort: a column of raw_number cells by value, any other by its text), one page
// of `page_size` rows (5 unless set), Previous/Next and "rows a–b of n", as Slack pages, sorts and
// filters it itself. Pure functions from data to HTML; what a person changed (page, sort, filter)
// lives in `views`, by table, so a repaint of the page keeps it.

/** A table's page, sort and filter, by its key (where it is shown, and its place there). */
const views = new Map();
/** What each key last drew, so a click redraws its table without a repaint of the page. */
const drawn = new Map();

export function tableView(key) {
  if (!views.has(key)) views.set(key, { page: 0, sort: null, descending: false, filter: '' });
  return views.get(key);
}

/** The words a cell shows: a raw cell's text, a rich_text cell's text, links and emoji included. */
export function cellText(cell) {
  if (!cell) return '';
  if (cell.type === 'raw_text' || cell.type === 'raw_number') return String(cell.text ?? '');
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk).join('');
    if (!node || typeof node !== 'object') return '';
    if (node.type === 'link') return node.text ?? node.url ?? '';
    if (node.type === 'emoji') return EMOJI[node.name] ?? `:${node.name}:`;
    if (node.type === 'user') return `@${node.user_id}`;
    return (node.text ?? '') + walk(node.elements);
  };
  return walk(cell.elements);
}

/** The body rows to show, filtered and sorted as `view` says, with their count before paging. */
export function visibleRows(block, view) {
  const body = (block.rows ?? []).slice(1);
  const needle = view.filter.trim().toLowerCase();
  const kept = needle
    ? body.filter((row) => row.some((cell) => cellText(cell).toLowerCase().includes(needle)))
    : body;
  if (view.sort === null) return kept;
  const column = view.sort;
  // As Slack: numbers when every cell of the column is raw_number, else alphabetical.
  const numeric = body.every((row) => row[column]?.type === 'raw_number');
  const sorted = [...kept].sort((a, b) =>
    numeric
      ? a[column].value - b[column].value
      : cellText(a[column]).localeCompare(cellText(b[column]), undefined, {
          numeric: true,
          sensitivity: 'base',
        }),
  );
  return view.descending ? sorted.reverse() : sorted;
}

export function pageSize(block) {
  return Number.isInteger(block.page_size) ? block.page_size : 5;
}

function renderCell(cell, context, location) {
  if (cell?.type !== 'rich_text') return escapeHtml(cellText(cell));
  return (cell.elements ?? []).map((section) => renderRich(section, context, location)).join('');
}

/** A rich_text cell's elements; a link on an unfurl domain opens the Work Object flexpane on click. */
function renderRich(node, context, location) {
  if (Array.isArray(node)) return node.map((n) => renderRich(n, context, location)).join('');
  if (!node || typeof node !== 'object') return '';
  if (node.type === 'link') {
    const url = String(node.url ?? '');
    if (!/^https?:\/\//i.test(url)) return escapeHtml(node.text ?? url);
    const workObject = isUnfurlDomain(url, context.unfurlDomains ?? []);
    const attributes = workObject
      ? ` class="dt-link wo-link" data-wo-link="${escapeHtml(url)}" data-location="${escapeHtml(location)}"`
      : ' class="dt-link"';
    return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer"${attributes}>${escapeHtml(node.text ?? url)}</a>`;
  }
  if (node.type === 'text') {
    let html = escapeHtml(node.text ?? '');
    if (node.style?.code) html = `<code>${html}</code>`;
    if (node.style?.bold) html = `<strong>${html}</strong>`;
    if (node.style?.italic) html = `<em>${html}</em>`;
    if (node.style?.strike) html = `<del>${html}</del>`;
    return html;
  }
  if (node.type === 'emoji' || node.type === 'user') return escapeHtml(cellText({ elements: [node] }));
  return renderRich(node.elements, context, location);
}

/** As Slack's unfurls: the app's unfurl domains and their subdomains. */
export function isUnfurlDomain(url, domains) {
  let host;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** The table, with its filter box; `key` names it for its view (page, sort, filter). */
export function renderDataTable(block, context = {}, location = '', key = location) {
  const view = tableView(key);
  drawn.set(key, { block, context, location });
  return `<div class="block data-table" data-table-key="${escapeHtml(key)}">
      <div class="dt-top"><span class="dt-caption">${escapeHtml(block.caption ?? '')}</span>
        <input type="search" class="dt-filter" aria-label="Filter ${escapeHtml(block.caption ?? 'the table')}" placeholder="Filter" value="${escapeHtml(view.filter)}"></div>
      <div class="dt-body">${renderTableBody(block, context, location, key)}</div>
    </div>`;
}

/**
 * A person's change to the table `key` (sort by a column, turn a page, filter), and its body drawn
 * again; undefined for a table not drawn.
 */
export function changeTable(key, change) {
  const table = drawn.get(key);
  if (!table) return undefined;
  const view = tableView(key);
  if (change.sort !== undefined) {
    view.descending = view.sort === change.sort ? !view.descending : false;
    view.sort = change.sort;
    view.page = 0;
  }
  if (change.step !== undefined) view.page = Math.max(0, view.page + change.step);
  if (change.filter !== undefined) {
    view.filter = change.filter;
    view.page = 0;
  }
  return renderTableBody(table.block, table.context, table.location, key);
}

/** The table and its pager: what a sort, a page or a filter changes (the filter box stays put). */
export function renderTableBody(block, context, location, key) {
  const view = tableView(key);
  const [header = [], ...body] = block.rows ?? [];
  const rows = visibleRows(block, view);
  const size = pageSize(block);
  const pages = Math.max(1, Math.ceil(rows.length / size));
  view.page = Math.min(view.page, pages - 1);
  const first = view.page * size;
  const shown = rows.slice(first, first + size);
  const rowHeader = Number.isInteger(block.row_header_column_index) ? block.row_header_column_index : 0;
  const numeric = header.map((_, c) => body.length > 0 && body.every((row) => row[c]?.type === 'raw_number'));
  const heads = header
    .map((cell, c) => {
      const sorted = view.sort === c ? (view.descending ? 'descending' : 'ascending') : 'none';
      const arrow = sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : '';
      return `<th scope="col" aria-sort="${sorted}"${numeric[c] ? ' class="dt-number"' : ''}><button type="button" class="dt-sort" data-column="${c}">${escapeHtml(cellText(cell))}${arrow}</button></th>`;
    })
    .join('');
  const cells = (row) =>
    row
      .map((cell, c) => {
        const tag = c === rowHeader ? 'th scope="row"' : 'td';
        const end = c === rowHeader ? 'th' : 'td';
        return `<${tag}${numeric[c] ? ' class="dt-number"' : ''}>${renderCell(cell, context, location)}</${end}>`;
      })
      .join('');
  const range = rows.length === 0 ? 'no rows' : `rows ${first + 1}–${first + shown.length} of ${rows.length}`;
  return `<table><caption class="dt-caption-a11y">${escapeHtml(block.caption ?? '')}</caption>
      <thead><tr>${heads}</tr></thead>
      <tbody>${shown.map((row) => `<tr>${cells(row)}</tr>`).join('')}</tbody></table>
    <div class="dt-pager"><button type="button" class="dt-page" data-step="-1"${view.page === 0 ? ' disabled' : ''}>Previous</button>
      <span class="dt-range" aria-live="polite">${range}</span>
      <button type="button" class="dt-page" data-step="1"${view.page >= pages - 1 ? ' disabled' : ''}>Next</button></div>`;
}
