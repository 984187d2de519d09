import type { PartnerApiError } from '../partner-api/index.js';
import { escapeMrkdwn, formatMoney, plural, slackDate } from './format.js';
import type { BalanceReading } from './home.js';
import { partnerAdminNote } from './messages.js';
import type { Block, RenderOptions, SlackMessage } from './types.js';

export interface FinanceAlertInput {
  watched: 'funds' | 'runway';
  type: 'crossed' | 'worse' | 'recovered';
  threshold: number;
  reading: BalanceReading;
  available: number | null;
  runwayDays: number | null;
  averagePerDay: number | null;
  /** `slack://app?…&tab=home`, when the app's ID is known. */
  homeLink: string | undefined;
}

function days(value: number | null): string {
  return value === null ? 'no spend in the last 7 days' : `${value.toFixed(1)} days`;
}

/** Balance alerts for the finance channel: the figures, when they were read, the threshold, the trace. */
export function renderFinanceAlert(input: FinanceAlertInput, options: RenderOptions): SlackMessage {
  const money = (value: number | null) => formatMoney(value, options.currency);
  const subject = input.watched === 'funds' ? 'Available funds' : 'Runway';
  const limit = input.watched === 'funds' ? money(input.threshold) : plural(input.threshold, 'day');
  const value = input.watched === 'funds' ? money(input.available) : days(input.runwayDays);
  // "Available funds" is plural, "Runway" singular: the verbs follow.
  const many = input.watched === 'funds';
  const headline = {
    crossed: `:warning: *${subject} fell below ${limit}: ${value}.*`,
    worse: `:rotating_light: *${subject} ${many ? 'keep' : 'keeps'} falling: ${value}* (threshold ${limit}).`,
    recovered: `:white_check_mark: *${subject} ${many ? 'are' : 'is'} back above ${limit}: ${value}.*`,
  }[input.type];
  const { reading } = input;
  const blocks: Block[] = [
    { type: 'section', text: { type: 'mrkdwn', text: headline } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Available funds*\n${money(input.available)}` },
        { type: 'mrkdwn', text: `*Runway*\n${days(input.runwayDays)}` },
        { type: 'mrkdwn', text: `*Balance*\n${money(reading.balance)}` },
        { type: 'mrkdwn', text: `*Credit limit*\n${money(reading.creditLimit)}` },
        { type: 'mrkdwn', text: `*Average spend per day (7 days)*\n${money(input.averagePerDay)}` },
      ],
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Read ${slackDate(reading.readAt.toISOString(), options.now)}${reading.traceId ? ` · trace ID \`${escapeMrkdwn(reading.traceId)}\`` : ''} · available funds = balance + credit limit · ${input.homeLink ? `<${input.homeLink}|Open the Home tab>` : 'details on Order Desk’s Home tab'}`,
        },
      ],
    },
  ];
  const text = `${subject} ${input.type === 'recovered' ? 'recovered' : 'alert'}: ${value} (threshold ${limit})`;
  return { text: text.replace(/[<>&]/g, ''), blocks };
}

/** Three readings in a row failed: not news about money, news that nobody can see it. */
export function renderBalanceUnreadable(error: PartnerApiError, failures: number): SlackMessage {
  const trace = error.traceId ? ` Trace ID \`${escapeMrkdwn(error.traceId)}\`.` : '';
  return {
    text: 'The balance cannot be read from the partner API',
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `:grey_question: *The balance cannot be read:* the last ${failures} readings failed, so balance alerts are paused. Nothing to do here: Order Desk keeps trying at each check (less often while the partner API fails) and posts here when it can read the balance again.${trace}`,
        },
      },
      ...partnerAdminNote(error),
    ],
  };
}

export function renderBalanceReadableAgain(): SlackMessage {
  return {
    text: 'The balance can be read again',
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: ':white_check_mark: *The balance can be read again;* balance alerts are back on.',
        },
      },
    ],
  };
}
