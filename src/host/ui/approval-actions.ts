// Answering an approval: the panel's buttons, the editor title's Accept / Reject (and their keybindings), and
// the diff behind an approval card (the diff editor while it is pending, the change it made once answered).
import * as vscode from 'vscode';
import type { Transcript } from '../../panel/transcript';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { CommandHandlers } from './commands';
import type { Logger } from '../logger';
import type { SessionManager } from '../session/session-manager';
import type { Toolkit } from '../wiring/toolkit';

interface ApprovalDeps {
  toolkit: Pick<Toolkit, 'approvals' | 'diffApproval'>;
  manager: SessionManager;
  log: Pick<Logger, 'warn'>;
}

export const approvalMessages = (deps: () => ApprovalDeps) =>
  ({
    approval_decision: (m) => {
      const { toolkit, log } = deps();
      void toolkit.approvals.resolve(m.requestId, m.decision).then((found) => {
        if (!found) log.warn(`approval ${m.requestId} was answered but is no longer pending`);
      });
    },
    open_diff: (m) => {
      const { toolkit, manager } = deps();
      // A pending proposal opens its diff editor; an answered one shows the change it made (from the transcript).
      if (toolkit.diffApproval.pendingIds().includes(m.requestId)) {
        void toolkit.diffApproval.show(m.requestId, { preserveFocus: false });
        return;
      }
      void showPastChange(manager.current.transcript, m.requestId);
    },
  }) satisfies Partial<WebviewHandlers>;

export const approvalCommands = (deps: () => ApprovalDeps) =>
  ({
    /** target: proposal/approval id, the proposal's URI (editor title button), or none (active diff, else oldest). */
    'forge.acceptEdit': async (target?: unknown) => {
      const { diffApproval, approvals } = deps().toolkit;
      if (await diffApproval.accept(asTarget(target))) return true;
      const id = approvalId(target, approvals);
      return id ? approvals.resolve(id, { kind: 'approve', scope: 'once' }) : false;
    },
    'forge.rejectEdit': async (target?: unknown, why?: unknown) => {
      const { diffApproval, approvals } = deps().toolkit;
      const reason = typeof why === 'string' ? why : undefined;
      if (await diffApproval.reject(asTarget(target), reason)) return true;
      const id = approvalId(target, approvals);
      return id ? approvals.resolve(id, { kind: 'reject', ...(reason ? { reason } : {}) }) : false;
    },
  }) satisfies Partial<CommandHandlers>;

function asTarget(target: unknown): string | vscode.Uri | undefined {
  if (typeof target === 'string' || target instanceof vscode.Uri) return target;
  return undefined;
}

/** An approval that is not an edit proposal: the one named, or the oldest pending when none is. */
function approvalId(target: unknown, approvals: ApprovalDeps['toolkit']['approvals']): string | undefined {
  const t = asTarget(target);
  return typeof t === 'string' ? t : t === undefined ? approvals.pending()[0]?.id : undefined;
}

/** An answered edit: its diff (as the approval card had it) in a read-only diff document. */
async function showPastChange(transcript: Transcript, requestId: string): Promise<void> {
  const item = transcript.getItems().find((it) => it.kind === 'approval' && it.requestId === requestId);
  if (item?.kind !== 'approval' || item.preview?.kind !== 'edit') return;
  const p = item.preview;
  const name = p.displayPath ?? p.path;
  const content = `--- a/${name}\n+++ b/${name}\n${p.diff}${p.diffTruncated ? '\n… (the change was longer than the panel keeps)' : ''}\n`;
  const doc = await vscode.workspace.openTextDocument({ content, language: 'diff' });
  await vscode.window.showTextDocument(doc, {
    preview: true,
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: false,
  });
}
