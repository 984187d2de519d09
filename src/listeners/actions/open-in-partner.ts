import { counted } from '../frame.js';

/**
 * "Open in the partner platform" is a link button: Slack opens the order's page in the browser and
 * also sends the click here. It only needs an ack (without one, Slack shows the clicker a warning
 * and Bolt logs an unacknowledged request); there is nothing to check or answer.
 */
export function openInPartnerAction() {
  return counted(async () => 'ok');
}
