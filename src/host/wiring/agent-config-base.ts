// The extension's run config without VS Code: the shared surface config (src/node/surface/settings.ts, the CLI's
// too) plus the extension's own ports, the environment line and forge.autoApprove. Kept free of 'vscode' so the
// parity test builds it in plain Node next to the CLI's.
import type { AgentConfig } from '../../core/loop/config';
import { VSCODE_CONTROLS } from '../../core/loop/surface';
import type { StandingApprovals } from '../../core/safety/policy';
import { surfaceConfig, type ConfigModel, type SurfaceSettings } from '../../node/surface/settings';
import type { AutoApproveSettings } from '../settings';

interface ExtensionPorts {
  /** Host facts for the prompt's dynamic environment layer. */
  environment: () => string;
  /** forge.autoApprove as it is now (read on every call so a change applies at once). */
  autoApprove: () => Pick<AutoApproveSettings, 'write' | 'execute' | 'network'>;
}

export function extensionAgentConfig(
  s: SurfaceSettings,
  model: ConfigModel,
  ports: ExtensionPorts,
): Partial<AgentConfig> {
  return {
    ...surfaceConfig(s, model, VSCODE_CONTROLS),
    environment: ports.environment,
    // Decided in core's Policy like the CLI's --approve flags.
    policy: { standing: () => standingApprovals(ports.autoApprove()) },
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
