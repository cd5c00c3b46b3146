// What a workspace MCP server's permission covers: everything in its configuration that changes what runs or
// where it connects — transport, command, args, cwd, env, envFile and what the envFile holds, url, headers. The
// user allows one exact configuration; a change to any of it (`env` gaining NODE_OPTIONS=--require ./x.js, a
// new line in the envFile, another header) is another configuration and is asked again.
import { createHash } from 'node:crypto';
import type { McpServerSpec } from './config';

const sorted = (map: Record<string, string>): [string, string][] =>
  Object.keys(map)
    .sort()
    .map((k) => [k, map[k]!]);

/** The configuration the permission is for, as one canonical value (stable key order). */
function permissionFields(spec: McpServerSpec, envFileDigest?: string): unknown[] {
  if (spec.type === 'http') return ['http', spec.name, spec.url, sorted(spec.headers)];
  return [
    'stdio',
    spec.name,
    spec.command,
    spec.args,
    spec.cwd ?? '',
    sorted(spec.env),
    spec.envFile ?? '',
    spec.envFile ? (envFileDigest ?? '') : '',
  ];
}

/**
 * The key a permission is stored under: the server's name and a digest of its configuration (no value of it in
 * clear: headers and env may hold literal secrets). `envFileDigest` is what digestText() gave for the envFile's
 * text as read for this start, or a word for why there was none ('missing').
 */
export function serverPermissionKey(spec: McpServerSpec, envFileDigest?: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(permissionFields(spec, envFileDigest)))
    .digest('hex');
  return `mcp2:${spec.name}:${digest}`;
}

/** The digest of an envFile's content, for serverPermissionKey. */
export function digestText(data: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** For the question: what the user allows (command line or URL, folder, variable and header names, envFile). */
export function describePermission(spec: McpServerSpec): string {
  const names = (map: Record<string, string>) => Object.keys(map).sort().join(', ');
  if (spec.type === 'http') {
    const headers = Object.keys(spec.headers).length ? ` with the headers ${names(spec.headers)}` : '';
    return `connects to ${spec.url.replace(/\?.*$/, '')}${headers}`;
  }
  const parts = [`runs "${[spec.command, ...spec.args].join(' ').slice(0, 200)}"`];
  if (spec.cwd) parts.push(`in ${spec.cwd}`);
  if (Object.keys(spec.env).length) parts.push(`with ${names(spec.env)} set`);
  if (spec.envFile) parts.push(`${Object.keys(spec.env).length ? 'and' : 'with'} the variables of ${spec.envFile}`);
  return parts.join(' ');
}

/** How a server that waits for the user's permission to start fails its start (the panel shows it as a question). */
export const PERMISSION_PENDING = 'not started: waiting for your permission';
