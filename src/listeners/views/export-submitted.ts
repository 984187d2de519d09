import { EXPORT_FIELDS } from '../../blocks/index.js';
import type { ExportClaim } from '../../finance/export-claims.js';
import { checkExportRange, runExport } from '../../finance/export-orders.js';
import type { AppDeps } from '../../flows/deps.js';
import type { ListenerDeps } from '../frame.js';
import { submittedForm, type ViewArgs } from './form.js';

/** What a CSV export needs: the one per user claim, the history (copy or partner), the upload. */
export type ExportFeatureDeps = Pick<
  AppDeps,
  'currency' | 'delivery' | 'exportClaims' | 'now' | 'orderCopy' | 'orderSync' | 'partner' | 'reportTimeZone'
>;

/** The export modal submitted: checked before the ack, then run after it; one per user across replicas. */
export function exportSubmitted(deps: ExportFeatureDeps & ListenerDeps) {
  return async ({ ack, body, view, client }: ViewArgs) => {
    const userId = body.user.id;
    const { field, errors } = submittedForm({ ack, view }, EXPORT_FIELDS);
    const from = field('from')?.selected_date ?? undefined;
    const to = field('to')?.selected_date ?? undefined;
    const status = field('status')?.selected_option?.value;
    const range = checkExportRange(from, to, deps.now(), deps.reportTimeZone);
    if (!range.ok) return errors(range.errors);
    const finance = await deps.auth.isFinance(userId);
    if (!finance.allowed) return errors({ from: 'Only finance may export orders.' });
    let claim: ExportClaim | undefined;
    try {
      claim = await deps.exportClaims.claim(userId);
    } catch {
      return errors({
        from: 'Order Desk cannot start an export right now (its shared state is unreachable). Try again in a few minutes.',
      });
    }
    if (!claim)
      return errors({
        from: 'An export you started is already running: its file will come to your DM with Order Desk.',
      });
    await ack();
    await runExport(
      { ...deps, client, timeZone: deps.reportTimeZone },
      { userId, from: range.from, to: range.to, completedOnly: status === 'completed' },
    )
      .then((result) => deps.metrics.exports.inc({ outcome: result.outcome }))
      .catch((error: unknown) => {
        deps.metrics.exports.inc({ outcome: 'error' });
        deps.logger.error({ userId, error: (error as Error).message }, 'export failed');
      })
      .finally(() => (claim as ExportClaim).release());
  };
}
