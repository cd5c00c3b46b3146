// MCP tool results -> the text a tool result carries. Defensive: the input is whatever the server sent (the SDK
// checks the shape, but a result is still treated as untrusted data). Images, audio and binary resources are
// described, not inlined; the text is capped here (the loop then shows the model a head/tail and pages the rest).
import type { ToolResult } from '../tools/types';

/** Most text one MCP result may carry into Forge (the loop's own cap then applies on top, with paging). */
export const MAX_RESULT_CHARS = 1_000_000;

type Block = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Approximate decoded size of a base64 string. */
function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

function sizeLabel(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A resource's contents (embedded in a result, or read with resources/read) as text. */
export function resourceText(resource: unknown): string {
  if (!resource || typeof resource !== 'object') return '[resource: malformed]';
  const r = resource as Block;
  const uri = str(r.uri) ?? '(no uri)';
  const mime = str(r.mimeType);
  const text = str(r.text);
  if (text !== undefined) return `[resource ${uri}${mime ? ` (${mime})` : ''}]\n${text}`;
  const blob = str(r.blob);
  if (blob !== undefined)
    return `[binary resource ${uri}${mime ? ` (${mime})` : ''}, ${sizeLabel(base64Bytes(blob))}: not shown]`;
  return `[resource ${uri}: no contents]`;
}

function blockText(block: unknown): string {
  if (!block || typeof block !== 'object') return '[malformed content block]';
  const b = block as Block;
  switch (b.type) {
    case 'text':
      return str(b.text) ?? '[malformed text block]';
    case 'image':
    case 'audio': {
      const data = str(b.data) ?? '';
      return `[${b.type}${str(b.mimeType) ? ` ${str(b.mimeType)}` : ''}, ${sizeLabel(base64Bytes(data))}: not shown to the model]`;
    }
    case 'resource':
      return resourceText(b.resource);
    case 'resource_link': {
      const name = str(b.name) ?? str(b.title) ?? '';
      return `[resource link${name ? ` "${name}"` : ''}: ${str(b.uri) ?? '(no uri)'}${str(b.mimeType) ? ` (${str(b.mimeType)})` : ''}]`;
    }
    default:
      return `[unsupported content type ${JSON.stringify(String(b.type)).slice(0, 40)}]`;
  }
}

function capped(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n[... MCP result cut at ${MAX_RESULT_CHARS} of ${text.length} chars]`;
}

/** Maps a tools/call result to a ToolResult; anything that is not a result becomes a clear error. */
export function mapCallToolResult(server: string, tool: string, result: unknown): ToolResult {
  if (!result || typeof result !== 'object') {
    return {
      isError: true,
      content: `MCP server "${server}" returned a malformed result for ${tool} (not an object).`,
      data: { errorClass: 'tool' },
    };
  }
  const r = result as Block;
  const parts: string[] = [];
  // Legacy servers (protocol 2024-10-07) answer { toolResult }.
  if (r.content === undefined && 'toolResult' in r)
    parts.push(typeof r.toolResult === 'string' ? r.toolResult : (JSON.stringify(r.toolResult) ?? ''));
  else if (Array.isArray(r.content)) {
    let total = 0;
    for (const block of r.content) {
      const text = blockText(block);
      parts.push(text);
      total += text.length;
      if (total > MAX_RESULT_CHARS) break;
    }
  } else if (r.content !== undefined) {
    return {
      isError: true,
      content: `MCP server "${server}" returned a malformed result for ${tool} ("content" is not a list).`,
      data: { errorClass: 'tool' },
    };
  }
  if (!parts.length && r.structuredContent !== undefined)
    parts.push(JSON.stringify(r.structuredContent, null, 2) ?? '');
  const isError = r.isError === true;
  const text = parts.join('\n\n');
  return {
    content: capped(
      text || (isError ? `${tool} failed (the server gave no details).` : '(the tool returned no content)'),
    ),
    ...(isError ? { isError: true, data: { errorClass: 'tool' } } : {}),
  };
}
