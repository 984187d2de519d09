import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { EXPORT_CALLBACK_ID, SEARCH_CALLBACK_ID } from '../../blocks/index.js';
import { SUBSCRIBE_CALLBACK_ID } from '../../blocks/subscribe-modal.js';
import { exportSubmitted } from './export-submitted.js';
import { searchSubmitted } from './search-submitted.js';
import { subscribeSubmitted } from './subscribe-submitted.js';

export function registerViews(app: App, deps: AppDeps): void {
  app.view(EXPORT_CALLBACK_ID, exportSubmitted(deps));
  app.view(SEARCH_CALLBACK_ID, searchSubmitted(deps));
  app.view(SUBSCRIBE_CALLBACK_ID, subscribeSubmitted(deps));
}
