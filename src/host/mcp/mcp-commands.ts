// "Forge: Show MCP Servers" (status, tools, restart / stop / start) and "Forge: Attach MCP Resource".
import * as vscode from 'vscode';
import { resourceAttachmentText } from '../../core/mcp/prompts';
import type { CommandHandlers } from '../ui/commands';
import type { Logger } from '../logger';
import type { McpServerStatus } from '../../node/mcp/manager';
import { MCP_JSON, type McpService } from './mcp-service';
import { errorText } from '../../core/error-text';

const ICONS: Record<McpServerStatus['state'], string> = {
  running: '$(pass-filled)',
  starting: '$(loading~spin)',
  stopped: '$(circle-outline)',
  crashed: '$(warning)',
  error: '$(error)',
  disabled: '$(circle-slash)',
};

function describeState(s: McpServerStatus): string {
  const tools = s.tools ? ` · ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}` : '';
  return `${s.state}${tools}`;
}

async function showServers(service: McpService, log: Logger & { show?(): void }): Promise<void> {
  await service.ready();
  const servers = service.manager.status();
  if (!servers.length) {
    const pick = await vscode.window.showInformationMessage(
      `Forge: no MCP servers are configured. Add them to ${MCP_JSON} or the forge.mcp.servers setting.`,
      `Open ${MCP_JSON}`,
      'Open Settings',
    );
    if (pick === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'forge.mcp');
    else if (pick) await openMcpJson();
    return;
  }
  type Item = vscode.QuickPickItem & { server?: McpServerStatus };
  const items: Item[] = servers.map((s) => ({
    label: `${ICONS[s.state]} ${s.name}`,
    description: `${describeState(s)} — ${s.source}`,
    detail: s.error ?? (s.tools?.length ? s.tools.join(', ') : s.origin),
    server: s,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Forge: MCP servers',
    placeHolder: 'Pick a server to restart, stop or see its tools',
  });
  if (!picked?.server) return;
  const s = picked.server;
  const actions = [
    ...(s.state === 'running' ? ['Restart', 'Stop'] : s.state === 'disabled' ? [] : ['Start']),
    ...(s.tools?.length ? ['Show Tools'] : []),
    'Show Logs',
  ];
  const action = await vscode.window.showQuickPick(actions, { title: `MCP server "${s.name}" (${s.origin})` });
  const connection = service.manager.connection(s.name);
  try {
    // Choosing Start or Restart here is the user's permission to run the server.
    if (action === 'Restart' || action === 'Start') await service.allowServer(s.name);
    if (action === 'Restart') await connection?.restart();
    else if (action === 'Stop') await connection?.stop();
    else if (action === 'Start') await connection?.restart();
    else if (action === 'Show Tools')
      await vscode.window.showQuickPick(s.tools ?? [], {
        title: `Tools of "${s.name}" (as the model sees them: mcp__${s.name}__<tool>)`,
      });
    else if (action === 'Show Logs') log.show?.();
    if (action === 'Restart' || action === 'Start')
      void vscode.window.showInformationMessage(`Forge: MCP server "${s.name}" is ${connection?.state ?? 'gone'}.`);
  } catch (err) {
    void vscode.window.showErrorMessage(`Forge: ${errorText(err)}`);
  }
}

async function openMcpJson(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return;
  const uri = vscode.Uri.joinPath(folder.uri, MCP_JSON);
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('{\n  "servers": {}\n}\n'));
  }
  await vscode.window.showTextDocument(uri);
}

/** Picks a resource of any server and queues it for the next message. Returns the attached URI. */
async function attachResource(
  service: McpService,
  pick?: { server: string; uri: string },
): Promise<string | undefined> {
  await service.ready();
  let target = pick;
  if (!target) {
    const resources = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Forge: listing MCP resources…' },
      () => service.manager.listResources(),
    );
    if (!resources.length) {
      void vscode.window.showInformationMessage('Forge: no MCP server offers resources.');
      return undefined;
    }
    const chosen = await vscode.window.showQuickPick(
      resources.map((r) => ({ label: r.name, description: `${r.server} · ${r.uri}`, detail: r.description, r })),
      { title: 'Forge: attach an MCP resource to your next message', matchOnDescription: true },
    );
    if (!chosen) return undefined;
    target = { server: chosen.r.server, uri: chosen.r.uri };
  }
  const result = await service.manager.readResource(target.server, target.uri);
  service.attach(target.uri, resourceAttachmentText(target.server, target.uri, result));
  void vscode.window.showInformationMessage(`Forge: ${target.uri} will be attached to your next message.`);
  return target.uri;
}

export function mcpCommands(service: McpService, log: Logger & { show?(): void }) {
  /* eslint-disable @typescript-eslint/no-explicit-any -- a command handler takes whatever VS Code passes */
  const guard =
    (fn: (...a: any[]) => Promise<unknown>) =>
    async (...args: any[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        log.error(`MCP command failed: ${errorText(err)}`);
        void vscode.window.showErrorMessage(`Forge: ${errorText(err)}`);
        return undefined;
      }
    };
  /* eslint-enable @typescript-eslint/no-explicit-any */
  return {
    'forge.showMcpServers': guard(() => showServers(service, log)),
    'forge.attachMcpResource': guard((pick?: { server: string; uri: string }) => attachResource(service, pick)),
  } satisfies Partial<CommandHandlers>;
}
