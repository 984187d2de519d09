import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { LOOKUP_ORDERS, lookupOrdersShortcut } from './lookup-orders.js';

export const SHORTCUTS = [LOOKUP_ORDERS] as const;

export function registerShortcuts(app: App, deps: AppDeps): void {
  app.shortcut({ callback_id: LOOKUP_ORDERS, type: 'message_action' }, lookupOrdersShortcut(deps));
}
