import type { ApprovalDecision, ApprovalPreview, PolicyAction, RiskClass } from '../tools/types';

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
}

/** Injected by the host (diff editor + panel buttons) or by tests. Must honour the signal. */
export interface Approver {
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

