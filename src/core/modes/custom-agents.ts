// Custom agents: Markdown files with frontmatter (name, description, tools, model) whose body is the agent's
// prompt, in the places Claude Code, VS Code / GitHub Copilot and Forge read them. Each becomes a mode beside the
// built-in ones (the mode picker, /mode) and a helper delegate_task can hand a sub-task to by name. Unknown keys
// are ignored; a file that cannot be used is a problem with its reason. Read through the confined readers of
// core/skills/sources.ts.
import * as path from 'node:path';
import { firstParagraph, listField, parseFrontmatter, stringField } from '../skills/frontmatter';
import {
  displayIn,
  listPlace,
  placesFor,
  refusalProblem,
  type AgentFileProblem,
  type DiscoverOptions,
} from '../skills/sources';
import { mapToolNames } from '../skills/tool-names';
import type { WorkspaceFs } from '../workspace/types';
import { isModeName, type ModeDefinition } from './index';

const WORKSPACE_AGENT_DIRS = ['.forge/agents', '.github/agents', '.claude/agents'];
const HOME_AGENT_DIRS = ['.forge/agents', '.claude/agents', '.copilot/agents'];
/** GitHub's cloud agent caps the prompt here; a longer one is refused rather than silently cut. */
const PROMPT_CAP = 30_000;
const FILE_MAX_BYTES = 128 * 1024;
const MAX_AGENTS = 30;
const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ALL_RISKS = ['read', 'write', 'execute', 'network'] as const;

export interface CustomAgentDiscovery {
  agents: ModeDefinition[];
  problems: AgentFileProblem[];
}

/** `name.agent.md` / `name.md` -> `name`. */
function baseName(file: string): string {
  return path.basename(file).replace(/(\.agent)?\.md$/i, '');
}

/** One agent file as a mode, or why it cannot be one. */
export function parseCustomAgent(text: string, file: string, display: string): ModeDefinition | AgentFileProblem {
  const fm = parseFrontmatter(text);
  if (!fm.ok) return { display, reason: fm.reason };
  const name = stringField(fm.data, 'name') ?? baseName(file);
  if (!NAME_RULE.test(name))
    return { display, reason: `its name "${name.slice(0, 80)}" is not usable (letters, digits, - _ . and at most 64)` };
  if (isModeName(name))
    return { display, reason: `its name ${name} is a built-in mode's; give the agent another name` };
  const prompt = fm.body.trim();
  if (!prompt) return { display, reason: "it has no prompt (the text after the frontmatter is the agent's prompt)" };
  if (prompt.length > PROMPT_CAP)
    return { display, reason: `its prompt is ${prompt.length} characters, over the ${PROMPT_CAP} an agent may have` };
  const description = (stringField(fm.data, 'description') ?? firstParagraph(prompt) ?? '').replace(/\s+/g, ' ');
  const tools = listField(fm.data, 'tools');
  const rawModel = fm.data.model;
  // VS Code allows a list of models (the first available wins); Forge takes the first.
  const model = Array.isArray(rawModel) ? rawModel.find((m) => typeof m === 'string') : stringField(fm.data, 'model');
  const maxTurns = Number(fm.data.maxTurns ?? fm.data['max-turns']);
  return {
    name,
    label: name,
    prompt: `Custom agent ${name}, defined by the team in ${display}:\n${prompt}`,
    description: description.slice(0, 1_024),
    source: display,
    file,
    maxIterations: Number.isInteger(maxTurns) && maxTurns > 0 ? Math.min(maxTurns, 200) : 25,
    risks: ALL_RISKS,
    ...(tools ? { allow: mapToolNames(tools).names } : {}),
    ...(typeof model === 'string' && model.trim() && model.trim() !== 'inherit' ? { model: model.trim() } : {}),
  };
}

/**
 * The custom agents of the workspace folders and the user's home (the user's own win a name clash). Unusable
 * files are problems; the rest are still read.
 */
export async function discoverCustomAgents(fs: WorkspaceFs, opts: DiscoverOptions = {}): Promise<CustomAgentDiscovery> {
  const agents: ModeDefinition[] = [];
  const problems: AgentFileProblem[] = [];
  for (const place of placesFor(fs, WORKSPACE_AGENT_DIRS, HOME_AGENT_DIRS, opts)) {
    const entries = await listPlace(place, problems, (name) => /\.md$/i.test(name));
    if (!entries) continue;
    const files = entries
      .filter((e) => e.type === 'file' && /\.md$/i.test(e.name) && !/^readme\.md$/i.test(e.name))
      .sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of files) {
      const display = displayIn(place, entry.abs);
      const read = await place.reader.readText(entry.abs, { maxBytes: FILE_MAX_BYTES });
      if (!read.ok) {
        const p = refusalProblem(place, entry.abs, read);
        if (p) problems.push(p);
        continue;
      }
      const parsed = parseCustomAgent(read.text, entry.abs, display);
      if (!('name' in parsed)) {
        problems.push(parsed);
        continue;
      }
      const taken = agents.find((a) => a.name === parsed.name);
      if (taken) problems.push({ display, reason: `an agent named ${parsed.name} is already in ${taken.source}` });
      else if (agents.length >= MAX_AGENTS)
        problems.push({ display, reason: `left out: at most ${MAX_AGENTS} custom agents are used` });
      else agents.push(parsed);
    }
  }
  return { agents, problems };
}

/** The custom agents delegate_task can hand a sub-task to, for the prompt. */
export function customAgentIndexText(agents: readonly ModeDefinition[]): string {
  if (!agents.length) return '';
  const lines = agents.map((a) => `- ${a.name}: ${(a.description ?? '').slice(0, 300)}`);
  return [
    "Custom agents (the team's own helpers). To hand a sub-task to one, call delegate_task with its name as `agent`:",
    ...lines,
  ].join('\n');
}
