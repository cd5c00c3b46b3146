// Project rules for the headless runner: the same discovery as the extension (AGENTS.md at the root, then
// .forge/rules/*.md; core/rules/project-rules.ts), so a repository's rules read the same in CI and in VS Code.
import type { WorkspaceFs } from '../core/workspace/types';
import { discoverBaseRules, renderRules } from '../core/rules/project-rules';

export interface ProjectRules {
  /** Workspace-relative files the rules came from, in prompt order. */
  files: string[];
  /** The prompt's project-rules layer (AgentConfig.projectRules); '' when there are none. */
  text: string;
}

export async function loadProjectRules(fs: WorkspaceFs): Promise<ProjectRules> {
  const sources = await discoverBaseRules(fs);
  return { files: sources.map((s) => s.display), text: renderRules(sources) };
}
