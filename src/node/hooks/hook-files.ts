// Where hooks are configured, read from disk: the user's ~/.claude/settings.json (their own, run as they are) and
// the workspace's .claude/settings.json, .claude/settings.local.json, .forge/hooks.json and .github/hooks/*.json
// (the repository's: through the same confinement as every control-plane file, and run only once allowed).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseHookSettings, type ParsedHooks } from '../../core/hooks/config';
import type { HookScope } from '../../core/hooks/types';
import { ConfinedReader } from '../../core/safety/confined-read';
import { NodeWorkspaceFs } from '../node-fs';
import { errorText } from '../../core/error-text';

/** A settings file larger than this is refused (hooks are a few lines). */
const MAX_BYTES = 256 * 1024;

/** The workspace files that may hold hooks, relative to the folder. */
export const WORKSPACE_HOOK_FILES = ['.claude/settings.json', '.claude/settings.local.json', '.forge/hooks.json'];
/** VS Code's folder of hook files. */
const GITHUB_HOOKS_DIR = '.github/hooks';

function parseText(text: string, scope: HookScope, source: string): ParsedHooks {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { hooks: [], problems: [`${source}: not valid JSON (${errorText(err)})`] };
  }
  return parseHookSettings(json, scope, source, process.platform);
}

function merge(parts: ParsedHooks[]): ParsedHooks {
  return { hooks: parts.flatMap((p) => p.hooks), problems: parts.flatMap((p) => p.problems) };
}

/** The workspace folder's hooks (every file above), read through the ConfinedReader. */
export async function readWorkspaceHooks(folder: string): Promise<ParsedHooks> {
  const reader = new ConfinedReader(new NodeWorkspaceFs([folder]));
  const files = [...WORKSPACE_HOOK_FILES];
  const listing = await reader.listDir(path.join(folder, GITHUB_HOOKS_DIR)).catch(() => undefined);
  if (listing?.ok)
    for (const e of listing.entries)
      if (e.type === 'file' && e.name.endsWith('.json')) files.push(`${GITHUB_HOOKS_DIR}/${e.name}`);
  const parts = await Promise.all(
    files.map(async (rel): Promise<ParsedHooks> => {
      const r = await reader.readText(path.join(folder, ...rel.split('/')), { maxBytes: MAX_BYTES });
      if (!r.ok) return r.code === 'missing' ? { hooks: [], problems: [] } : { hooks: [], problems: [r.message] };
      return parseText(r.text, 'workspace', rel);
    }),
  );
  return merge(parts);
}

/** The user's hooks: ~/.claude/settings.json (and any extra files the caller names, e.g. --hooks-file). */
export async function readUserHooks(extraFiles: readonly string[] = [], home = os.homedir()): Promise<ParsedHooks> {
  const files = [path.join(home, '.claude', 'settings.json'), ...extraFiles];
  const parts = await Promise.all(
    files.map(async (file): Promise<ParsedHooks> => {
      const shown = file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
      const text = await fsp.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (text === undefined) return { hooks: [], problems: [] };
      if (text.length > MAX_BYTES)
        return { hooks: [], problems: [`${shown}: larger than ${MAX_BYTES} bytes; not read`] };
      return parseText(text, 'user', shown);
    }),
  ).catch((err: unknown) => [{ hooks: [], problems: [`user hooks: ${errorText(err)}`] }]);
  return merge(parts);
}
