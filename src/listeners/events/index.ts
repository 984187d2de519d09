import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { appHomeOpened } from './app-home-opened.js';
import { linkShared } from './link-shared.js';

export const EVENTS = ['app_home_opened', 'link_shared'] as const;

export function registerEvents(app: App, deps: AppDeps): void {
  app.event('app_home_opened', appHomeOpened(deps));
  app.event('link_shared', linkShared(deps));
}
