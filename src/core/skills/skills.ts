// Agent Skills (agentskills.io): a folder with SKILL.md (frontmatter name + description, then the instructions)
// and the files its body points to. Only each skill's name and description go into the prompt; the model loads
// a body with use_skill when a task calls for it. Every file is read through a confined reader (sources.ts).
import * as path from 'node:path';
import { boolField, firstParagraph, listField, parseFrontmatter, stringField } from './frontmatter';
import {
  displayIn,
  listPlace,
  placesFor,
  refusalProblem,
  type AgentFileProblem,
  type DiscoverOptions,
  type Place,
} from './sources';
import { mapToolNames } from './tool-names';
import type { WorkspaceFs } from '../workspace/types';
import { plural } from '../plural';

/** Workspace folders that hold skills (VS Code, Claude Code, Codex, Forge's own), and the user's. */
const WORKSPACE_SKILL_DIRS = ['.forge/skills', '.agents/skills', '.claude/skills', '.github/skills'];
const HOME_SKILL_DIRS = ['.forge/skills', '.agents/skills', '.claude/skills', '.copilot/skills'];

export const SKILL_FILE = 'SKILL.md';
/** SKILL.md read at most (a skill is instructions, not data); past it the body is cut and says so. */
const SKILL_FILE_MAX_BYTES = 256 * 1024;
/** Body characters handed to the model at once (the spec asks for under 500 lines). */
export const SKILL_BODY_CAP = 24_000;
/** Skills listed at most, and the index's size: the prompt is shared with everything else. */
const MAX_SKILLS = 100;
const DESCRIPTION_CAP = 1_024;
const INDEX_CAP = 8_000;
/** The spec's name rule: lowercase letters, digits and single hyphens, not at either end. */
const NAME_RULE = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}$/;

export interface Skill {
  name: string;
  description: string;
  /** Absolute folder and SKILL.md. */
  dir: string;
  file: string;
  /** SKILL.md as shown to people (`.claude/skills/x/SKILL.md`, `~/.claude/skills/x/SKILL.md`). */
  display: string;
  scope: 'workspace' | 'user';
  /** allowed-tools as Forge tool names: while the skill is active only these run (never a grant). */
  allowedTools?: string[];
  /** disable-model-invocation: true. */
  userOnly?: boolean;
  place: Place;
}

export interface SkillDiscovery {
  skills: Skill[];
  problems: AgentFileProblem[];
}

function parseSkill(place: Place, dir: string, file: string, text: string): Skill | AgentFileProblem {
  const display = displayIn(place, file);
  const fm = parseFrontmatter(text);
  if (!fm.ok) return { display, reason: fm.reason };
  const folder = path.basename(dir);
  const given = stringField(fm.data, 'name');
  // Claude Code names a skill by its folder; the spec wants the two equal. A valid `name` wins, else the folder.
  const name = given && NAME_RULE.test(given) ? given : NAME_RULE.test(folder) ? folder : undefined;
  if (!name)
    return {
      display,
      reason: `its name "${(given ?? folder).slice(0, 80)}" is not a skill name (lowercase letters, digits and hyphens, at most 64)`,
    };
  const description = stringField(fm.data, 'description') ?? firstParagraph(fm.body);
  if (!description) return { display, reason: 'it has no description (say what the skill does and when to use it)' };
  const allowed = listField(fm.data, 'allowed-tools');
  return {
    name,
    description: description.replace(/\s+/g, ' ').slice(0, DESCRIPTION_CAP),
    dir,
    file,
    display,
    scope: place.scope,
    ...(allowed ? { allowedTools: mapToolNames(allowed).names } : {}),
    ...(boolField(fm.data, 'disable-model-invocation') === true ? { userOnly: true } : {}),
    place,
  };
}

/**
 * The skills in the workspace folders and the user's home. The user's own come first and win a name clash; a
 * skill that cannot be used (bad frontmatter, no description, refused by the confinement) is a problem with its
 * reason, and the others are still read.
 */
export async function discoverSkills(fs: WorkspaceFs, opts: DiscoverOptions = {}): Promise<SkillDiscovery> {
  const skills: Skill[] = [];
  const problems: AgentFileProblem[] = [];
  const byName = new Map<string, Skill>();
  let leftOut = 0;
  for (const place of placesFor(fs, WORKSPACE_SKILL_DIRS, HOME_SKILL_DIRS, opts)) {
    const entries = await listPlace(place, problems);
    if (!entries) continue;
    const folders = entries.filter((e) => e.type === 'dir').sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of folders) {
      const file = path.join(entry.abs, SKILL_FILE);
      const read = await place.reader.readText(file, { maxBytes: SKILL_FILE_MAX_BYTES, overCap: 'truncate' });
      if (!read.ok) {
        const p = refusalProblem(place, file, read);
        if (p) problems.push(p);
        continue;
      }
      const parsed = parseSkill(place, entry.abs, file, read.text);
      if (!('name' in parsed)) {
        problems.push(parsed);
        continue;
      }
      // Meant to be run by the user only (disable-model-invocation): Forge has no /skill command, so not listed.
      if (parsed.userOnly) continue;
      const taken = byName.get(parsed.name);
      if (taken) {
        problems.push({
          display: parsed.display,
          reason: `a skill named ${parsed.name} is already in ${taken.display}`,
        });
        continue;
      }
      if (skills.length >= MAX_SKILLS) {
        leftOut++;
        continue;
      }
      byName.set(parsed.name, parsed);
      skills.push(parsed);
    }
  }
  if (leftOut)
    problems.push({
      display: 'skills',
      reason: `${plural(leftOut, 'more skill', 'more skills')} left out: at most ${MAX_SKILLS} are listed`,
    });
  return { skills, problems };
}

/** The prompt's skills layer: name and description of each (cut at the index cap, the rest named). */
export function skillIndexText(skills: readonly Skill[]): string {
  if (!skills.length) return '';
  const head =
    "Skills (the team's instructions for particular tasks). When a task matches a skill's description, call " +
    'use_skill with its name before you start, and follow what it says; its files are read with use_skill too.';
  const lines: string[] = [head];
  let used = head.length;
  const left: string[] = [];
  for (const s of skills) {
    const line = `- ${s.name}: ${s.description}`;
    if (used + line.length > INDEX_CAP) {
      left.push(s.name);
      continue;
    }
    lines.push(line);
    used += line.length + 1;
  }
  if (left.length) lines.push(`- (more, descriptions left out to save space: ${left.join(', ')})`);
  return lines.join('\n');
}
