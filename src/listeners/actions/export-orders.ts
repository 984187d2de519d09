import { renderExportModal } from '../../blocks/index.js';
import { dayKey } from '../../finance/spend.js';
import { counted, type ListenerDeps } from '../frame.js';
import { openModal } from '../open-modal.js';
import type { ExportFeatureDeps } from '../views/export-submitted.js';
import type { ButtonClickArgs } from './click.js';

/** "Export orders" on the Home tab (finance only, checked at the click): opens the export modal. */
export function exportOrdersAction(deps: Pick<ExportFeatureDeps, 'now' | 'reportTimeZone'> & ListenerDeps) {
  return counted<ButtonClickArgs>(async ({ body, client }) => {
    const finance = await deps.auth.isFinance(body.user.id);
    if (!finance.allowed) return 'denied';
    const now = deps.now();
    const to = dayKey(now, deps.reportTimeZone);
    const from = dayKey(new Date(now.getTime() - 29 * 86_400_000), deps.reportTimeZone);
    return (await openModal(deps, client, body.trigger_id, renderExportModal({ from, to }))) ? 'ok' : 'error';
  });
}
