import * as z from 'zod';
import type { WorkspaceSandbox } from '../../safety/paths';
import type { Tool } from '../types';
import { errorResult, resolveOrRefuse } from './common';
import { walkBatches } from './walk';

const LIST_DEFAULT_MAX = 500;
const LIST_HARD_MAX = 5000;
const COUNT_LIMIT = 50_000;

const listFilesInput = z.object({
  path: z.string().optional().describe('Folder relative to the workspace root. Default: the root.'),
  recursive: z.boolean().optional().describe('List sub-folders too (breadth first). Default false.'),
  maxEntries: z
    .number()
    .int()
    .min(1)
    .max(LIST_HARD_MAX)
    .optional()
    .describe(`Cap on entries returned. Default ${LIST_DEFAULT_MAX}.`),
});

export function createListFilesTool(sandbox: WorkspaceSandbox): Tool<typeof listFilesInput> {
  return {
    name: 'list_files',
    description:
      'List files and folders (folders end with "/"). Honours .gitignore and .forgeignore and skips node_modules, ' +
      '.git and secret files (.env, keys), which Forge cannot read. Use recursive=true for a tree; output is capped ' +
      'and says how much was left out.',
    input: listFilesInput,
    risk: 'read',
    async execute(input, ctx) {
      const r = await resolveOrRefuse(sandbox, input.path ?? '.', 'list');
      if (!r.ok) return r.result;
      const shown = sandbox.display(r.path.abs);
      // Entries are relative to where the folder really lives (a linked folder is walked at its target).
      const start = await sandbox.canonical(r.path);
      const st = await sandbox.fs.stat(start.abs);
      if (!st) return errorResult(`Folder not found: ${shown}.`);
      if (st.type !== 'dir') return errorResult(`${shown} is a file, not a folder. Use read_file to read it.`);
      const max = input.maxEntries ?? LIST_DEFAULT_MAX;
      const entries: string[] = [];
      let omitted = 0;
      let countCapped = false;
      const prefix = start.rel ? start.rel.length + 1 : 0;
      walking: for await (const batch of walkBatches(sandbox, start, {
        recursive: input.recursive ?? false,
        signal: ctx.signal,
      })) {
        for (const e of batch) {
          if (entries.length < max) entries.push(e.rel.slice(prefix) + (e.type === 'dir' ? '/' : ''));
          else if (++omitted >= COUNT_LIMIT) {
            countCapped = true;
            break walking;
          }
        }
      }
      entries.sort();
      const lines = [
        `${shown === '.' ? 'Workspace root' : shown + '/'}: ${entries.length + omitted}${countCapped ? '+' : ''} entries${omitted ? `, showing ${entries.length}` : ''}`,
      ];
      lines.push(...(entries.length ? entries : ['(empty)']));
      if (omitted) {
        lines.push(
          `[${omitted}${countCapped ? '+' : ''} more entries omitted. List a sub-folder, use recursive=false, or raise maxEntries (max ${LIST_HARD_MAX}).]`,
        );
      }
      return { content: lines.join('\n'), data: { entries, omitted, countCapped } };
    },
  };
}
