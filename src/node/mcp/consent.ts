// The per-workspace answer to "start this MCP server from the workspace?": kept under a key that covers the
// server's whole configuration (core/mcp/permission.ts) and what its envFile holds, so an answer given for one
// configuration never starts another. No 'vscode' here: the store is a Memento (workspaceState) or a Map.
import type { McpServerSpec, VariableContext } from '../../core/mcp/config';
import { serverPermissionKey } from '../../core/mcp/permission';
import { readEnvFile, type EnvFileSnapshot } from './config-files';

/** Where answers are kept (VS Code's workspaceState has this shape). */
export interface ConsentStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** workspaceState keys: the configurations the user allowed / refused to start. */
export const ALLOWED_SERVERS = 'forge.mcp.allowedServers';
const REFUSED_SERVERS = 'forge.mcp.refusedServers';

interface ServerPermission {
  /** The permission key of the configuration as it is now. */
  key: string;
  state: 'allowed' | 'refused' | 'ask';
  /** The envFile as read for the key: start the server with exactly these bytes (withEnvFile). */
  envFile?: EnvFileSnapshot;
}

/** The permission key of a server's configuration now, with its envFile read once for it. */
export async function permissionOf(
  spec: McpServerSpec,
  folder: string | undefined,
  vars: Omit<VariableContext, 'input'>,
): Promise<{ key: string; envFile?: EnvFileSnapshot }> {
  const envFile = await readEnvFile(spec, folder, vars);
  return { key: serverPermissionKey(spec, envFile?.digest), ...(envFile ? { envFile } : {}) };
}

export class McpServerConsent {
  constructor(
    private readonly store: ConsentStore,
    private readonly folder: () => string | undefined,
    private readonly vars: () => Omit<VariableContext, 'input'>,
  ) {}

  /** What the user said about this exact configuration (and envFile content). */
  async check(spec: McpServerSpec): Promise<ServerPermission> {
    const { key, envFile } = await permissionOf(spec, this.folder(), this.vars());
    const state = this.list(ALLOWED_SERVERS).includes(key)
      ? 'allowed'
      : this.list(REFUSED_SERVERS).includes(key)
        ? 'refused'
        : 'ask';
    return { key, state, ...(envFile ? { envFile } : {}) };
  }

  /** Allows the configuration under `key` (a refusal of it is forgotten). Earlier answers for the same server stay: changing back asks nothing. */
  async allow(key: string): Promise<void> {
    await this.store.update(ALLOWED_SERVERS, [...new Set([...this.list(ALLOWED_SERVERS), key])]);
    await this.store.update(
      REFUSED_SERVERS,
      this.list(REFUSED_SERVERS).filter((k) => k !== key),
    );
  }

  async refuse(key: string): Promise<void> {
    await this.store.update(REFUSED_SERVERS, [...new Set([...this.list(REFUSED_SERVERS), key])]);
  }

  private list(name: string): string[] {
    const v = this.store.get<unknown>(name);
    return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
  }
}
