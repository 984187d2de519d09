/** Action IDs shared by the builders (which put them on buttons) and the listeners (which handle them). */
export const ActionIds = {
  shareOrder: 'order_share',
  showKeys: 'order_show_keys',
  hideKeys: 'keys_hide',
  openOrder: 'order_open',
  resultsPage: 'results_page',
  refreshHome: 'home_refresh',
} as const;
