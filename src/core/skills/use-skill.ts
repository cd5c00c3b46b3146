// use_skill: the model loads a skill's instructions (and the files they point to) when a task calls for it. While a
// skill with allowed-tools is active (until the run ends), only those tools run: the list narrows, never grants;
// an approval is asked exactly as without the skill (a cloned repository cannot approve its own tools).
import * as path from 'node:path';
import * as z from 'zod';
import type { AgentEvent } from '../loop/events';
import type { Tool } from '../tools/types';
import { parseFrontmatter } from './frontmatter';
import { SKILL_BODY_CAP, SKILL_FILE, type Skill } from './skills';

export const USE_SKILL = 'use_skill';
const FILE_MAX_BYTES = 256 * 1024;
const MAX_LISTED_FILES = 100;
/** Tools a narrowed run keeps: loading another skill, and the plan. */
const ALWAYS_KEPT = [USE_SKILL, 'update_plan'];

/** One task's skills: which were loaded (the panel shows them) and which are active in the current run. */
export class SkillSession {
  readonly loaded = new Set<string>();
  private readonly active = new Map<string, readonly string[] | undefined>();
  private readonly listeners = new Set<() => void>();

  constructor(readonly skills: () => readonly Skill[]) {}

  /** A new run starts without an active skill (the body stays in the conversation; its narrowing ends). */
  onEvent(e: AgentEvent): void {
    if (e.type === 'run_start') this.active.clear();
  }

  activate(skill: Skill): void {
    this.loaded.add(skill.name);
    this.active.set(skill.name, skill.allowedTools);
    for (const l of [...this.listeners]) l();
  }

  onDidLoad(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The tools the run is narrowed to: what every active skill with allowed-tools allows; undefined = no narrowing. */
  narrow(): string[] | undefined {
    const lists = [...this.active.values()].filter((l): l is readonly string[] => l !== undefined);
    if (!lists.length) return undefined;
    const [first, ...rest] = lists;
    return [...first!.filter((t) => rest.every((l) => l.includes(t))), ...ALWAYS_KEPT];
  }
}

async function listFiles(skill: Skill, signal: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const listing = await skill.place.reader.listDir(dir, signal);
    if (!listing.ok) return;
    for (const e of listing.entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= MAX_LISTED_FILES) return;
      const rel = path.relative(skill.dir, e.abs).split(path.sep).join('/');
      if (e.type === 'dir' && depth < 2) await walk(e.abs, depth + 1);
      // Only what use_skill would read: a secret or an ignored file is not even named.
      else if (e.type === 'file' && rel !== SKILL_FILE && !(await skill.place.reader.check(e.abs))) out.push(rel);
    }
  };
  await walk(skill.dir, 0);
  return out;
}

const input = z.object({
  name: z.string().min(1).max(64).describe('The skill, as named in the skills list.'),
  file: z
    .string()
    .max(500)
    .optional()
    .describe(
      "A file of the skill, relative to its folder (e.g. references/TEMPLATE.md); omit to load the skill's instructions.",
    ),
});

export function createUseSkillTool(session: SkillSession): Tool<typeof input> {
  return {
    name: USE_SKILL,
    description:
      "Load a skill's instructions when the task matches its description (see the skills list), or read one of its files.",
    input,
    risk: 'read',
    async execute({ name, file }, ctx) {
      const skills = session.skills();
      const skill = skills.find((s) => s.name === name);
      if (!skill) {
        const names = skills.map((s) => s.name).join(', ');
        return { content: `There is no skill "${name}".${names ? ` Skills: ${names}.` : ''}`, isError: true };
      }
      if (file !== undefined) return readSkillFile(skill, file, ctx.signal);
      const read = await skill.place.reader.readText(skill.file, {
        maxBytes: FILE_MAX_BYTES,
        overCap: 'truncate',
        signal: ctx.signal,
      });
      if (!read.ok) return { content: `The skill ${name} could not be loaded: ${read.why}.`, isError: true };
      const fm = parseFrontmatter(read.text);
      if (!fm.ok) return { content: `The skill ${name} could not be loaded: ${fm.reason}.`, isError: true };
      let body = fm.body.replaceAll('${CLAUDE_SKILL_DIR}', skill.dir).trim();
      const cut = body.length > SKILL_BODY_CAP || read.truncated;
      if (body.length > SKILL_BODY_CAP) body = body.slice(0, SKILL_BODY_CAP);
      const files = await listFiles(skill, ctx.signal);
      session.activate(skill);
      const parts = [`Skill ${skill.name} (${skill.display}). Follow these instructions for this task.`];
      if (skill.allowedTools)
        parts.push(
          `While this skill is active (until this run ends) only these tools run: ${[...skill.allowedTools, ...ALWAYS_KEPT].join(', ')}. Each still needs the usual approval.`,
        );
      parts.push(body || '(The skill has no instructions beyond its description.)');
      if (cut) parts.push(`[... the instructions were cut at ${SKILL_BODY_CAP} characters]`);
      if (files.length)
        parts.push(
          `Files in this skill (read one with use_skill {"name": "${skill.name}", "file": "<path>"}):\n${files.map((f) => `- ${f}`).join('\n')}`,
        );
      return {
        content: parts.join('\n\n'),
        data: { skill: skill.name, display: skill.display, files: files.length },
        effects: { read: [skill.file] },
      };
    },
  };
}

async function readSkillFile(skill: Skill, file: string, signal: AbortSignal) {
  const rel = file.replace(/\\/g, '/').replace(/^\.\//, '');
  const abs = path.resolve(skill.dir, ...rel.split('/'));
  const inside = path.relative(skill.dir, abs);
  if (!rel || path.isAbsolute(file) || inside.startsWith('..') || path.isAbsolute(inside))
    return {
      content: `"${file}" is not a file of the skill ${skill.name} (give a path inside its folder).`,
      isError: true,
    };
  const read = await skill.place.reader.readText(abs, { maxBytes: FILE_MAX_BYTES, overCap: 'truncate', signal });
  if (!read.ok) return { content: `${rel} of the skill ${skill.name} was not read: ${read.why}.`, isError: true };
  const note = read.truncated ? `\n[... cut at ${FILE_MAX_BYTES / 1024} KB]` : '';
  return { content: `${skill.name}/${rel}:\n${read.text}${note}`, effects: { read: [abs] } };
}
