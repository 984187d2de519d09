/** Action IDs shared by the builders (which put them on buttons) and the listeners (which handle them). */
export const ActionIds = {
  shareOrder: 'order_share',
  showKeys: 'order_show_keys',
  hideKeys: 'keys_hide',
  openOrder: 'order_open',
  /** "Open one of N orders" under a table whose order cells are not links: opens the card as Open does. */
  openOrderMenu: 'order_open_menu',
  resultsPage: 'results_page',
  refreshHome: 'home_refresh',
  exportOrders: 'home_export',
  /** "Search orders" (/order's help, the Home tab, under a search's results): opens the search modal. */
  searchOrders: 'orders_search',
  /** Previous / Next of a search from the modal (search_page_prev, _next); the filters are in the value. */
  searchPage: 'search_page',
  /** Prefix of the "View image key" link buttons (one per image key: keys_reveal_<key>_<block>). */
  viewImageKey: 'keys_reveal',
  /** "Open in the partner platform" (ORDER_LINK_TEMPLATE): a link button; the click is only acked. */
  openInPartner: 'order_partner_link',
  /** "Notify me" on a card of an order that has not settled: a direct message when it does. */
  notifyMe: 'order_notify_me',
  /** "Stop" beside a watched order on the Home tab (value: the order). */
  stopWatch: 'home_stop_watch',
  /** "Remove" beside a channel subscription on the Home tab (value: the subscription). */
  removeSubscription: 'home_remove_subscription',
} as const;
