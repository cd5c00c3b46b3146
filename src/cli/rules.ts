// Project rules for the headless runner: AGENTS.md at the workspace root and .forge/rules/*.md, in that
// order, capped. SEAM: core has no rules input on this branch yet (the mcp branch adds src/core/rules/
// project-rules.ts and AgentConfig.projectRules); until it lands, the rules ride in the prompt's memory layer
// through withProjectRules(), which stays in the prompt prefix for the whole run. Once merged: set
// `config.projectRules` from core's discovery (renderRules(await discoverBaseRules(new NodeWorkspaceFs([root]))),
// or a TaskRules for nested AGENTS.md) in runtime.ts, and drop this file.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { MemoryItem, MemoryPort, RecallResult, ReflectionInput } from '../core/memory/port';

export const RULES_MAX_CHARS = 32_000;

export interface ProjectRules {
  /** Workspace-relative files the rules came from, in prompt order. */
  files: string[];
  text: string;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    const st = await fsp.stat(file);
    if (!st.isFile()) return undefined;
    return await fsp.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

export async function loadProjectRules(root: string, maxChars = RULES_MAX_CHARS): Promise<ProjectRules> {
  const candidates = ['AGENTS.md'];
  const rulesDir = path.join(root, '.forge', 'rules');
  const extra = await fsp.readdir(rulesDir).catch(() => [] as string[]);
  for (const name of extra.filter((n) => n.endsWith('.md')).sort()) candidates.push(path.join('.forge', 'rules', name));
  const files: string[] = [];
  const parts: string[] = [];
  let used = 0;
  for (const rel of candidates) {
    const text = (await readText(path.join(root, rel)))?.trim();
    if (!text) continue;
    const room = maxChars - used;
    if (room <= 0) break;
    const body = text.length > room ? `${text.slice(0, room)}\n[... ${rel} cut at ${maxChars} characters of rules ...]` : text;
    parts.push(`## ${rel.split(path.sep).join('/')}\n${body}`);
    files.push(rel);
    used += body.length;
  }
  const text = parts.length ? `Project rules (follow them; they come from the repository):\n\n${parts.join('\n\n')}` : '';
  return { files, text };
}

/** A MemoryPort that puts the project rules ahead of the recalled memories (see SEAM above). */
export function withProjectRules(inner: MemoryPort | undefined, rules: ProjectRules): MemoryPort | undefined {
  if (!rules.text) return inner;
  return {
    async recall(task: string, tokenBudget: number): Promise<RecallResult> {
      const recalled = inner ? await inner.recall(task, tokenBudget) : { items: [], promptText: '' };
      return { ...recalled, promptText: [rules.text, recalled.promptText].filter((t) => t.trim()).join('\n\n') };
    },
    reflect(input: ReflectionInput): Promise<MemoryItem[]> {
      return inner ? inner.reflect(input) : Promise.resolve([]);
    },
  };
}
