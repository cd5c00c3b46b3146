// MCP tool names as the model sees them: `mcp__<server>__<tool>`, within every provider's rule for tool names
// (OpenAI and Anthropic: ^[a-zA-Z0-9_-]{1,64}$). Long or clashing names get a short stable hash suffix.

const MCP_PREFIX = 'mcp__';
export const MAX_TOOL_NAME = 64;

/** Characters outside [a-zA-Z0-9_-] become '_' (runs collapsed); empty becomes 'x'. */
export function sanitizeNamePart(part: string): string {
  const s = part
    .normalize('NFKD')
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return s || 'x';
}

/** A short, stable base-36 hash (FNV-1a, 32 bit) of `text`. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(7, '0');
}

/**
 * The registry name of `tool` of `server`. Deterministic (the same server and tool always map to the same name,
 * so the model's tool list and the prompt cache stay stable); `taken` avoids clashes after sanitising.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string> = new Set()): string {
  const base = `${MCP_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  const exact = `${server}\u0000${tool}`;
  const lossless = base === `${MCP_PREFIX}${server}__${tool}`;
  if (base.length <= MAX_TOOL_NAME && lossless && !taken.has(base)) return base;
  // Lossy (sanitised or cut) names carry a hash of the original pair so two tools never collapse into one.
  const suffix = `_${shortHash(exact)}`;
  let name =
    base.length + suffix.length <= MAX_TOOL_NAME
      ? base + suffix
      : base.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
  for (let n = 2; taken.has(name); n++) {
    const extra = `_${n}`;
    name = name.slice(0, MAX_TOOL_NAME - extra.length) + extra;
  }
  return name;
}
