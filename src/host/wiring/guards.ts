// What issue 25 puts around every Agent in VS Code: the web tools (web_fetch, web_search), the saved permission
// rules (as each tool's own rule), and the hooks (PreToolUse ... Stop around the tools; prompt, compaction and
// notification events through AgentConfig.hooks). One object, created once, wired into each Agent the sessions build.
import * as vscode from 'vscode';
import type { Agent, AgentDeps } from '../../core/loop/agent';
import type { ApprovalRequest } from '../../core/safety/approval';
import { withSavedRules } from '../../core/safety/saved-rules';
import { createWebTools } from '../../core/tools/builtin/web';
import type { Tool } from '../../core/tools/types';
import type { SearchProviderConfig } from '../../node/web/web-search';
import { NodeWebClient } from '../../node/web/web-client';
import { HostHooks } from '../hooks/host-hooks';
import type { Logger } from '../logger';
import { SavedRulesService } from '../permissions/saved-rules-service';
import type { Toolkit } from './toolkit';

const SEARCH_KEY = 'forge.webSearch.apiKey';
const LABELS = { brave: 'Brave Search', tavily: 'Tavily', searxng: 'SearXNG' } as const;

export interface AgentGuards extends vscode.Disposable {
  hooks: HostHooks;
  rules: SavedRulesService;
  /** The palette commands: permissions and saved rules, hooks, the web search key. */
  commands: Record<'forge.managePermissions' | 'forge.manageHooks' | 'forge.setWebSearchKey', () => Promise<void>>;
  /** The deps with the web tools, the saved rules and the hooks. */
  wire(deps: AgentDeps): AgentDeps;
  /** Follows an agent's events: Notification hooks, the offer to save an "Always for this task". */
  follow(agent: Agent): void;
}

/** A user-scope setting only: a workspace must not point searches (and the key) at a server of its choice. */
function userSetting<T>(key: string): T | undefined {
  return vscode.workspace.getConfiguration('forge').inspect<T>(key)?.globalValue;
}

export function createAgentGuards(context: vscode.ExtensionContext, toolkit: Toolkit, log: Logger): AgentGuards {
  const hooks = new HostHooks(context.workspaceState, toolkit.commandSandbox, log);
  const rules = new SavedRulesService(context.globalState, context.workspaceState, toolkit.fs, log);
  let searchKey: string | undefined;
  const readKey = () =>
    Promise.resolve(context.secrets.get(SEARCH_KEY)).then(
      (k) => (searchKey = k),
      () => undefined,
    );
  void readKey();
  const search = (): SearchProviderConfig | undefined => {
    const kind = userSetting<string>('webSearch.provider');
    if (kind !== 'brave' && kind !== 'tavily' && kind !== 'searxng') return undefined;
    const url = userSetting<string>('webSearch.url');
    if (kind === 'searxng' && !url) return undefined;
    if (kind !== 'searxng' && !searchKey) return undefined;
    return { kind, label: LABELS[kind], ...(url ? { url } : {}), ...(searchKey ? { apiKey: searchKey } : {}) };
  };
  const client = new NodeWebClient({
    allowPrivate: () => userSetting<boolean>('webFetch.allowPrivateAddresses') === true,
    privateSetting: 'forge.webFetch.allowPrivateAddresses',
    search,
  });
  const webTools: Tool[] = createWebTools(client);
  const subs: vscode.Disposable[] = [
    hooks,
    rules,
    context.secrets.onDidChange((e) => e.key === SEARCH_KEY && void readKey()),
  ];
  const guard = (t: Tool) => withSavedRules(t, rules.rules);
  return {
    hooks,
    rules,
    commands: {
      'forge.managePermissions': () => rules.manage(() => toolkit.commandSandbox.containment().kind !== 'none'),
      'forge.manageHooks': () => hooks.manage(),
      'forge.setWebSearchKey': async () => {
        const key = await vscode.window.showInputBox({
          title: 'Forge: Web Search API Key',
          prompt:
            "The key of the provider in forge.webSearch.provider (Brave or Tavily); kept in VS Code's secret storage.",
          password: true,
          ignoreFocusOut: true,
        });
        if (key === undefined) return;
        if (key.trim()) await context.secrets.store(SEARCH_KEY, key.trim());
        else await context.secrets.delete(SEARCH_KEY);
      },
    },
    wire(deps) {
      const tools = [...deps.tools.filter((t) => !webTools.some((w) => w.name === t.name)), ...webTools].map(guard);
      return {
        ...deps,
        // Prompt hooks ask the task's own model.
        tools: hooks.service.wrapTools(tools, deps.model),
        ...(deps.toolSources
          ? {
              toolSources: hooks.service.wrapSources(
                deps.toolSources.map((s) => ({ id: s.id, load: async (signal) => (await s.load(signal)).map(guard) })),
                deps.model,
              ),
            }
          : {}),
        config: { ...deps.config, hooks: hooks.service.forModel(deps.model).port },
      };
    },
    follow(agent) {
      const asked = new Map<string, ApprovalRequest>();
      agent.on((e) => {
        hooks.service.onAgentEvent(e);
        if (e.type === 'approval_requested') asked.set(e.request.id, e.request);
        else if (e.type === 'approval_resolved') {
          const request = asked.get(e.requestId);
          asked.delete(e.requestId);
          if (request) rules.offer(request, e.decision);
        }
      });
    },
    dispose: () => vscode.Disposable.from(...subs).dispose(),
  };
}
