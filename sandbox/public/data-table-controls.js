import { changeTable } from './render-table.js';

// What a person does to a data table on the page (render-table.js): a click on a column's header
// sorts by it (again: the other way), Previous and Next turn its pages, the filter box keeps the
// rows that contain what is typed. Only the table's body is drawn again: the filter box keeps focus.

function redraw(element, change) {
  const table = element.closest('.data-table');
  const html = table ? changeTable(table.dataset.tableKey, change) : undefined;
  if (html !== undefined) table.querySelector('.dt-body').innerHTML = html;
}

export function attachDataTableControls(root) {
  root.addEventListener('click', (event) => {
    const sort = event.target.closest('.dt-sort');
    const page = event.target.closest('.dt-page');
    if (sort) redraw(sort, { sort: Number(sort.dataset.column) });
    else if (page && !page.disabled) redraw(page, { step: Number(page.dataset.step) });
  });
  root.addEventListener('input', (event) => {
    if (event.target.classList?.contains('dt-filter')) redraw(event.target, { filter: event.target.value });
  });
}
