import type { ApprovalDecision, ApprovalPreview, PolicyAction, RiskClass, SensitiveCall } from '../tools/types';

export type { PolicyAction };

export interface ApprovalRequest {
  /** Stable id: survives dump()/restore() so a pending approval can be answered after a reload. */
  id: string;
  taskId: string;
  toolCallId: string;
  toolName: string;
  risk: RiskClass;
  args: unknown;
  preview?: ApprovalPreview;
  /**
   * Set by the loop for a control-plane edit: an approver must ask a person (no setting, flag or task grant answers
   * it) and must not offer "Always for this task". The loop refuses an automatic approval of it anyway.
   */
  sensitive?: SensitiveCall;
}

/** Injected by the host (diff editor + panel buttons) or by tests. Must honour the signal. */
export interface Approver {
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}
