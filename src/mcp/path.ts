// Alone in its file: `npm run manifest` reads it without loading the MCP SDK and Bolt, so starts sooner.
/** Where Slack reaches the tools: the manifest's `mcp_servers` URL is PUBLIC_URL followed by this. */
export const MCP_PATH = '/mcp';
