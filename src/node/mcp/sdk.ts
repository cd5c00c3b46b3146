// The parts of the MCP SDK Forge uses, as one module: esbuild ships it as dist/vendor/mcp-sdk.js, loaded on the
// first server start (connection.ts), so activations that never start a server do not load the SDK (~100 ms);
// ajv (the SDK's JSON Schema validator) comes with it for core/mcp/schema.ts.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
export { Ajv } from 'ajv';
