// Project rules for the headless runner: the same discovery as the extension (AGENTS.md at the root, then
// .forge/rules/*.md; core/rules/project-rules.ts), so a repository's rules read the same in CI and in VS Code,
// under the same confinement (core/safety/confined-read.ts).
import type { WorkspaceFs } from '../core/workspace/types';
import { discoverBaseRules, renderRules } from '../core/rules/project-rules';

export interface ProjectRules {
  /** Workspace-relative files the rules came from, in prompt order. */
  files: string[];
  /** The prompt's project-rules layer (AgentConfig.projectRules); '' when there are none. */
  text: string;
}

/** `warn` names each rule file that was refused (a link out of the workspace, a secret, a FIFO...) and skipped. */
export async function loadProjectRules(fs: WorkspaceFs, warn?: (message: string) => void): Promise<ProjectRules> {
  const sources = await discoverBaseRules(fs, warn ? { warn } : {});
  return { files: sources.map((s) => s.display), text: renderRules(sources) };
}
