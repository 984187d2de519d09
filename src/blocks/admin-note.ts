import { context } from './primitives.js';
import type { Block } from './types.js';

/**
 * Small print for whoever runs Order Desk. The agent reading the message cannot change a setting, so
 * the message itself says who can help ("ask your Order Desk admin"); the setting's name goes here.
 */
export function adminNote(text: string): Block {
  return context(`For your Order Desk admin: ${text}`);
}
