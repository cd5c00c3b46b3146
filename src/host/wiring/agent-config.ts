// Settings -> AgentConfig: budgets, model limits, the environment layer and forge.autoApprove as standing approvals.
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { AgentConfig } from '../../core/loop/config';
import { memoryBudget } from '../../core/memory';
import type { StandingApprovals } from '../../core/safety/policy';
import { readSettings, type AutoApproveSettings, type ForgeSettings } from '../settings';
import type { SwitchableModel } from './model-factory';

export function agentConfigFrom(s: ForgeSettings, model: SwitchableModel): Partial<AgentConfig> {
  const window = model.info.contextWindow;
  return {
    mode: s.mode,
    ...(s.maxIterations !== undefined ? { maxIterations: s.maxIterations } : {}),
    ...(s.costBudgetUsd > 0 ? { maxCostUsd: s.costBudgetUsd } : {}),
    ...(s.timeBudgetMinutes > 0 ? { maxWallTimeMs: s.timeBudgetMinutes * 60_000 } : {}),
    ...(s.tokenBudget > 0 ? { maxTokens: s.tokenBudget } : {}),
    streamIdleTimeoutMs: s.streamIdleTimeoutSeconds * 1000,
    // Asked when the model keeps failing: the fallback resolved with the current model (settings changes apply).
    fallbackModel: () => model.fallback,
    price: (usage, info) => model.price(usage, info),
    // The memory share of the prompt budget (60/30/10 split of what the output reservation leaves).
    memoryTokenBudget: memoryBudget(window, Math.min(s.maxOutputTokens, window / 2)).memory,
    maxOutputTokens: s.maxOutputTokens,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.thinkingBudgetTokens > 0 ? { thinkingBudgetTokens: s.thinkingBudgetTokens } : {}),
    environment: describeEnvironment,
    // forge.autoApprove, read on every call so a change applies at once; decided in core's Policy like the CLI's flags.
    policy: { standing: () => standingApprovals(readSettings().autoApprove) },
  };
}

/** forge.autoApprove as standing approvals: each enabled risk class, named by its setting. */
function standingApprovals(a: Pick<AutoApproveSettings, 'write' | 'execute' | 'network'>): StandingApprovals {
  const out: StandingApprovals = {};
  if (a.write) out.write = 'forge.autoApprove.write';
  if (a.execute) out.execute = 'forge.autoApprove.execute';
  if (a.network) out.network = 'forge.autoApprove.network';
  return out;
}

/** Host facts for the prompt's dynamic environment layer. */
function describeEnvironment(): string {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const editor = vscode.window.activeTextEditor;
  const lines = [
    `Workspace folders: ${folders.length ? folders.join(', ') : '(none)'}`,
    `OS: ${os.platform()} ${os.release()}; shell: ${vscode.env.shell || 'default'}`,
    `Workspace trusted: ${vscode.workspace.isTrusted ? 'yes' : 'no (no edits, no commands)'}`,
  ];
  if (editor?.document.uri.scheme === 'file') {
    const rel = vscode.workspace.asRelativePath(editor.document.uri, false);
    lines.push(`Active file: ${rel} (line ${editor.selection.active.line + 1})`);
  }
  return lines.join('\n');
}
