/** Action IDs shared by the builders (which put them on buttons) and the listeners (which handle them). */
export const ActionIds = {
  shareOrder: 'order_share',
  showKeys: 'order_show_keys',
  hideKeys: 'keys_hide',
  openOrder: 'order_open',
  resultsPage: 'results_page',
  refreshHome: 'home_refresh',
  exportOrders: 'home_export',
  /** Prefix of the "View image key" link buttons (one per image key: keys_reveal_<key>_<block>). */
  viewImageKey: 'keys_reveal',
} as const;
