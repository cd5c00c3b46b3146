// Feeds the panel's ecosystem strip (MCP servers and their state, rules in use, queued attachments) and runs
// its buttons. Pushes are coalesced: a server starting emits several changes in a row.
import * as vscode from 'vscode';
import type { PanelBridge } from '../../panel/bridge';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { EcosystemView } from '../../protocol/messages';
import type { Ecosystem } from '../ecosystem';
import { mcpServerViews } from '../../panel/mcp-view';

function ecosystemView(eco: Ecosystem, taskId?: string): EcosystemView {
  return {
    // A server waiting for the user's permission is a question for the user, not a failing server.
    mcp: mcpServerViews(eco.mcp.manager.status()),
    rules: eco.rules
      .inUse(taskId)
      .slice(0, 200)
      .map((r) => ({ display: r.display.slice(0, 4000), kind: r.kind, truncated: r.truncated })),
    attachments: eco.mcp.pendingAttachments.slice(0, 50).map((a) => a.slice(0, 500)),
    ...teamView(eco, taskId),
  };
}

function teamView(eco: Ecosystem, taskId?: string): Pick<EcosystemView, 'skills' | 'agents' | 'teamProblems'> {
  const { team, models } = eco.team;
  const loaded = new Set(team.loadedBy(taskId));
  return {
    skills: team.skills
      .slice(0, 100)
      .map((s) => ({ name: s.name, display: s.display.slice(0, 4000), loaded: loaded.has(s.name) })),
    agents: team.agents.slice(0, 30).map((a) => ({
      name: a.name.slice(0, 200),
      display: (a.source ?? '').slice(0, 4000),
      ...(models.label(a.name) ? { model: models.label(a.name)!.slice(0, 200) } : {}),
    })),
    teamProblems: team.problems
      .slice(0, 50)
      .map((p) => ({ display: p.display.slice(0, 4000), reason: p.reason.slice(0, 200) })),
  };
}

/** The file a skill or agent in use came from (the webview names it by `display`; it names no path itself). */
function teamFile(eco: Ecosystem, display: string | undefined): string | undefined {
  const { team } = eco.team;
  const skill = team.skills.find((s) => s.display === display);
  if (skill) return skill.file;
  const agent = team.agents.find((a) => a.source === display);
  return agent ? agent.file : undefined;
}

export function connectEcosystemPanel(
  bridge: PanelBridge,
  eco: Ecosystem,
  currentTaskId: () => string | undefined,
): vscode.Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const push = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      try {
        bridge.post({ type: 'ecosystem', ecosystem: ecosystemView(eco, currentTaskId()) });
      } catch {
        // the panel is optional: a failed push is retried with the next change
      }
    }, 100);
  };
  // An attached resource changes the view too: the ecosystem fires onDidChange for it.
  const subs = [
    eco.mcp.manager.onDidChange(push),
    eco.rules.onDidChange(push),
    eco.onDidChange(push),
    eco.team.onDidChange(push),
  ];
  push();
  return new vscode.Disposable(() => {
    if (timer) clearTimeout(timer);
    for (const s of subs) s.dispose();
  });
}

/** The strip's buttons. They need no task, so they never wait for activation's background work. */
export const ecosystemMessages = (eco: Ecosystem, currentTaskId: () => string | undefined) =>
  ({
    ecosystem_action: ({ action, display }) => {
      if (action === 'show_mcp_servers') void vscode.commands.executeCommand('forge.showMcpServers');
      else if (action === 'attach_resource') void vscode.commands.executeCommand('forge.attachMcpResource');
      else if (action === 'edit_rules') void vscode.commands.executeCommand('forge.editProjectRules');
      else if (action === 'open_rule') {
        // Only a rule file in use opens (the webview names it; it is not trusted to name any path).
        const rule = eco.rules.inUse(currentTaskId()).find((r) => r.display === display);
        if (rule) void vscode.window.showTextDocument(vscode.Uri.file(rule.path), { preview: true });
      } else if (action === 'open_team_file') {
        const file = teamFile(eco, display);
        if (file) void vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
      }
    },
  }) satisfies Partial<WebviewHandlers>;
