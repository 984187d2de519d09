import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { EXPORT_CALLBACK_ID, SEARCH_CALLBACK_ID } from '../../blocks/index.js';
import { exportSubmitted } from './export-submitted.js';
import { searchSubmitted } from './search-submitted.js';

export function registerViews(app: App, deps: AppDeps): void {
  app.view(EXPORT_CALLBACK_ID, exportSubmitted(deps));
  app.view(SEARCH_CALLBACK_ID, searchSubmitted(deps));
}
