import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { orderCommand } from './order.js';
import { orderAuditCommand } from './order-audit.js';
import { orderKeysCommand } from './order-keys.js';
import { orderSubscribeCommand } from './order-subscribe.js';

export const COMMANDS = ['/order', '/order-keys', '/order-audit', '/order-subscribe'] as const;

export function registerCommands(app: App, deps: AppDeps): void {
  app.command('/order', orderCommand(deps));
  app.command('/order-keys', orderKeysCommand(deps));
  app.command('/order-audit', orderAuditCommand(deps));
  app.command('/order-subscribe', orderSubscribeCommand(deps));
}
