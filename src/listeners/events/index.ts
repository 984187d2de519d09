import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { appHomeOpened } from './app-home-opened.js';

export const EVENTS = ['app_home_opened'] as const;

export function registerEvents(app: App, deps: AppDeps): void {
  app.event('app_home_opened', appHomeOpened(deps));
}
