// Sensitive calls: edits of the control plane (control-plane.ts). They are asked of a person every time: no
// setting, --approve flag or "Always for this task" grant answers them. The marker travels on the approval request
// so every approver (panel, terminal, background task) and the loop itself hold the same rule.
import type { SensitiveCall } from '../tools/types';
import { controlPlaneMatch } from './control-plane';
import { errorText } from '../error-text';

/**
 * The marker for a change of the file shown as `displayPath`, when any of its workspace-relative forms (as addressed,
 * and where it really lives after symbolic links) is control plane; undefined otherwise.
 */
export function controlPlaneChange(
  displayPath: string,
  rels: readonly string[],
  extraDirs: readonly string[] = [],
): SensitiveCall | undefined {
  for (const rel of rels) {
    const m = controlPlaneMatch(rel, extraDirs);
    if (m)
      return {
        kind: 'control-plane',
        path: displayPath,
        anchor: m.anchor,
        why: m.why,
        notice: `control plane: ${m.why}; this edit is never auto-approved`,
      };
  }
  return undefined;
}

/** A call whose control-plane check failed: treated as control plane (asked of a person, never automatic). */
export function uncheckedCall(what: string, err: unknown): SensitiveCall {
  return {
    kind: 'control-plane',
    path: what,
    anchor: what,
    why: `Forge could not check whether it is control plane (${errorText(err)})`,
    notice: 'may be control plane (the check failed); this edit is never auto-approved',
  };
}

/** The card's and the terminal's title line: "Edit .vscode/settings.json — control plane: ...". */
export function sensitiveTitle(s: SensitiveCall, verb = 'Edit'): string {
  if (s.kind === 'unhidden-secrets') return `Run ${s.path} — ${s.notice}`;
  return `${verb} ${s.path} — ${s.notice}`;
}

/** A command while the sandbox's secret scan is incomplete or still running: asked of a person every time. */
export function unhiddenSecretsCall(command: string, scan: 'incomplete' | 'pending'): SensitiveCall {
  const why =
    scan === 'pending'
      ? "Forge is still locating the workspace's secrets to hide from commands"
      : 'the workspace has too many files for Forge to locate every secret, so one may be readable by a command';
  return { kind: 'unhidden-secrets', path: command, anchor: '', why, notice: `${why}; never auto-approved` };
}

/**
 * What the model reads when an approval that no person gave was refused for a sensitive call: a policy decision,
 * named as such, with what to do instead.
 */
export function sensitiveRefusal(s: SensitiveCall, approvedBy: string, forTheUser = ''): string {
  if (s.kind === 'unhidden-secrets') {
    return (
      `Refused by Forge's policy, not by a person: ${s.why}, so ${approvedBy} does not approve a command and nobody was asked.` +
      `${forTheUser ? ` ${forTheUser}` : ''} Do not retry the same call; do what you can with the file tools, and say in your final answer which commands are left to run.`
    );
  }
  return (
    `Refused by Forge's policy, not by a person: ${s.path} is control plane (${s.why}), ` +
    `so ${approvedBy} does not approve a change to it and nobody was asked.${forTheUser ? ` ${forTheUser}` : ''} Do not retry the same call. ` +
    `Finish the rest of the task, and say in your final answer what change ${s.path} needs and why, so the user can make it or approve it when asked.`
  );
}
