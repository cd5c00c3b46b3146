// The edit journal's policy in VS Code (docs/DESIGN-durability.md): every edit's intent is recorded before it is
// applied, and a proposed edit's intent is recorded while the user reads it, so an approved edit is written at once
// and a crash between Approve and the write is reconciled on restore.
import type { Disposable } from 'vscode';
import { JournalingApplier, type EditLedger, type StorageReporter } from '../../core/tasks/effects';
import type { EditApplier } from '../../core/workspace/types';
import type { Logger } from '../logger';
import type { ApprovalCenter } from '../ui/approval-center';
import { readCurrentText, VscodeEditApplier } from './edit-applier';

/** An approved edit whose tool never applied it (it failed first) has its proposed intent voided after this long. */
const PROPOSAL_TTL_MS = 60_000;

interface JournalingOptions {
  ledger: EditLedger;
  /** The task an edit belongs to (edits only happen inside a run, one run at a time). */
  currentTaskId: () => string | undefined;
  log: Logger;
  /** Hears storage failures (the first one is shown in the panel). */
  storage?: StorageReporter;
}

/** WorkspaceEdit edits, each recorded in the journal before it is applied (an edit it cannot record is not applied). */
export function journaledEditApplier(opts: JournalingOptions): EditApplier {
  return new JournalingApplier(
    new VscodeEditApplier(),
    opts.ledger,
    opts.currentTaskId,
    opts.log,
    opts.storage,
    readCurrentText,
  );
}

/** Records each proposed edit's intent while it waits for the user; withdraws it when the user answers. */
export function journalProposals(
  approvals: Pick<ApprovalCenter, 'onDidChange'>,
  opts: Pick<JournalingOptions, 'ledger' | 'currentTaskId'>,
): Disposable {
  const { ledger } = opts;
  return approvals.onDidChange((e) => {
    const { toolCallId } = e.request;
    if (e.type === 'requested') {
      const p = e.request.preview;
      if (p?.kind !== 'edit') return;
      const before = p.isNewFile ? null : p.original;
      // Only the open task's proposals: a sub-agent's task log is never reconciled at restore, so an intent left
      // open there would stay open; its edits append their intent when applied, as before.
      if (!ledger.propose || e.request.taskId !== opts.currentTaskId()) return ledger.stage?.(before, p.proposed);
      ledger.propose({ taskId: e.request.taskId, path: p.path, before, after: p.proposed, toolCallId });
      return;
    }
    // Approved: the tool takes the intent as it applies the edit; one it never applied is voided after a while.
    ledger.withdraw?.(toolCallId, e.decision.kind === 'approve' ? PROPOSAL_TTL_MS : undefined);
  });
}
