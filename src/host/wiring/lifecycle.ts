// What activation starts after everything is registered, and what deactivation waits for.
import type * as vscode from 'vscode';
import { warmFetch } from '../../node/fetch-warmup';
import type { Logger } from '../logger';
import type { Initialised } from './controller';
import type { WorkspaceStorage } from './storage';
import { errorText } from '../../core/error-text';

/**
 * The model resolves alongside the disk work; a restored task that waited for an approval asks again once both
 * are done. Resolves when that has been decided (tests wait for it).
 */
export function resolveModelThenResume(
  refreshModel: () => Promise<void>,
  ready: Promise<Initialised>,
  log: Logger,
): Promise<void> {
  return refreshModel()
    .catch((err) => log.error(`Model setup failed: ${errorText(err)}`))
    .then(() => ready)
    .then(
      (s) => void s.controller.resumeIfPending(),
      () => undefined, // reported by the panel wiring
    );
}

/** Flushes the open task, the edit journal, the leases and the audit trail (waits for the initialisation first). */
export async function flushForShutdown(ready: Promise<Initialised>, storage: WorkspaceStorage): Promise<void> {
  const s = await ready.catch(() => undefined);
  if (!s) return;
  await s.controller.manager.flush().catch(() => undefined);
  await s.journal.flush().catch(() => undefined);
  await storage.durable.dispose().catch(() => undefined);
  await storage.audit.flush().catch(() => undefined);
}

/** Loads fetch (the model SDKs' transport) while nobody waits, not in the first request after a reload. */
export function warmFetchSoon(context: vscode.ExtensionContext): void {
  const fetchWarmup = setTimeout(() => void warmFetch(), 300);
  context.subscriptions.push({ dispose: () => clearTimeout(fetchWarmup) });
}
