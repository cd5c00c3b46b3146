// The Tool contract: one zod schema per tool is the single source for the model's JSON Schema and run-time validation.
import type { z } from 'zod';
import type { ImagePart } from '../model/types';

/** What the policy (or a tool's own policy) decides for a call. */
export type PolicyAction = 'allow' | 'ask' | 'deny';

export type RiskClass = 'read' | 'write' | 'execute' | 'network';

/** Loop-breaking tools end the run and hand control to the user. */
export type LoopControl = 'done' | 'asked' | 'converse';

/** What the approver sees before a risky call runs. */
export type ApprovalPreview =
  | {
      kind: 'edit';
      path: string;
      original: string;
      proposed: string;
      isNewFile: boolean;
      /** workspace-relative, for people */ displayPath?: string;
    }
  | {
      kind: 'command';
      command: string;
      cwd?: string;
      /** What "Always for this task" would allow from now on (e.g. "git commit"); absent: this call only. */
      grant?: string;
      /** How the command will run, for the approver: contained (and how) or not. */
      containment?: string;
    }
  | { kind: 'generic'; summary: string };

/**
 * A call that a person must approve, each time: never approved by a setting, an --approve flag or a grant "for this
 * task". Today: an edit of the control plane (core/safety/control-plane.ts), which something outside the sandbox
 * later runs or trusts.
 */
export interface SensitiveCall {
  /** 'control-plane': an edit of it; 'unhidden-secrets': a command while the sandbox cannot hide every secret. */
  kind: 'control-plane' | 'unhidden-secrets';
  /** The file as people see it (workspace-relative), or the command line. */
  path: string;
  /** The part of the path that makes it control plane ('.vscode', 'AGENTS.md', '.github/workflows'). */
  anchor: string;
  /** What runs or trusts it ("VS Code runs its tasks and reads its settings"). */
  why: string;
  /** One line for the card and the terminal: what trusts the file, and that this is never auto-approved. */
  notice: string;
}

/**
 * The edit an approver accepted, exactly as previewed: the tool writes `content` without reading or computing
 * the file again (the applier still refuses when the file no longer matches `original`).
 */
export interface ApprovedEdit {
  path: string;
  original: string;
  /** What to write: the proposal, the user's edit of it, or only the hunks the user accepted. */
  content: string;
  isNewFile: boolean;
}

export type ApprovalDecision =
  | {
      kind: 'approve';
      scope?: 'once' | 'task';
      /** content the user edited on the proposed side of a diff */ editedContent?: string;
      /** approved without asking: the user's auto-approve setting, or a grant the user gave for this task */
      auto?: 'setting' | 'task_grant';
      /** The previewed edit, ready to write (set by approvers that showed an edit preview). */
      edit?: ApprovedEdit;
      /** What the model must be told about a partly accepted edit (which hunks the user rejected and why). */
      reviewNote?: string;
    }
  | {
      kind: 'reject';
      reason?: string;
      /** A rule refused it, not a person (a sensitive call no person could be asked about): the model is told so. */
      by?: 'policy';
    };

export interface ToolContext {
  signal: AbortSignal;
  taskId: string;
  toolCallId: string;
  /** The user's decision when the call needed approval (e.g. edited proposed content). */
  approval?: ApprovalDecision;
  /** Progress text while a long tool runs (e.g. terminal output chunks). */
  onProgress?: (chunk: string) => void;
}

export interface ToolResult {
  /** Text the model sees. The loop caps it; the full text is kept for paging. */
  content: string;
  isError?: boolean;
  /** Structured data for the UI / tests (validated against the tool's output schema when present). */
  data?: unknown;
  /** Images for the model (read_file on an image); a model without image input gets a line of text instead. */
  images?: ImagePart[];
  /** Paths read/edited and commands run, for progress (stagnation) tracking. */
  effects?: {
    read?: string[];
    edited?: string[];
    command?: string;
    /**
     * What information the call brought, as a stable key (e.g. a digest of the part of the result that matters,
     * without timings or refs). Optional: when absent the loop digests the result text itself. A call whose key
     * was already seen in the run brought nothing new (no progress).
     */
    observed?: string;
  };
}

/** A tool's own rule on one call (e.g. the parsed command line against the user's allow / deny lists). */
export interface PolicyHint {
  action: PolicyAction;
  reason: string;
}

/**
 * One call as its tool describes it before any decision (Tool.prepare): refused outright, never a question for the
 * user, or ready for the policy. Every field of 'ready' is optional; the cheap ones are values, the costly preview is
 * built only when the decision is "ask".
 */
export type PreparedCall =
  | { kind: 'refuse'; result: ToolResult }
  | {
      kind: 'ready';
      /** Builds what the approver shows (diff, command line). Called only when the decision is "ask". */
      preview?: (signal: AbortSignal) => Promise<ApprovalPreview>;
      /**
       * The tool's own rule for this call, given the keys this task granted the tool. 'deny' always wins; 'allow'
       * skips the question unless the user's policy denies the risk class or the tool; undefined: the risk class.
       */
      policyHint?: (grants: ReadonlySet<string>) => PolicyHint | undefined;
      /**
       * What "Always for this task" grants for this call, as keys policyHint later receives (a command's program
       * and subcommand). Absent: the tool is granted whole, by name; empty: nothing beyond this call.
       */
      grantKeys?: readonly string[];
      /** A call a person must approve, each time, whatever the policy, settings or grants say (the control plane). */
      sensitive?: SensitiveCall;
    };

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: S;
  /** The model's JSON Schema when it does not come from `input` (MCP tools: the server's own schema, checked by `input`). */
  inputJsonSchema?: Record<string, unknown>;
  output?: z.ZodType;
  risk: RiskClass;
  loopControl?: LoopControl;
  /**
   * What the tool says about one validated call before anything is decided: a refusal the model reads (a write to a
   * secret path, a command in an untrusted workspace), or what the policy and the approver need. Absent: ready, with
   * nothing to add. Core's Policy decides from it (core/safety/policy.ts); a prepare that throws counts as sensitive.
   */
  prepare?(input: z.infer<S>, ctx: ToolContext): Promise<PreparedCall>;
  /**
   * Time limit of one execute() in ms (a number, or per call from the input, e.g. a command's own timeout). The
   * loop aborts the call's signal when it passes and abandons a call that ignores it. Absent: the loop's default
   * (DEFAULT_TOOL_TIMEOUT_MS); 0: none (a tool bounded otherwise, such as a sub-agent with its own limits).
   */
  timeoutMs?: number | ((input: z.infer<S>) => number);
  execute(input: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** Thrown by a tool for a failure worth retrying (1 s, 2 s, 4 s, cap 10 s, 3 attempts). */
export class TransientToolError extends Error {
  override readonly name = 'TransientToolError';
}

/** Thrown by a tool for a failure the model should see and fix. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/**
 * Tools that come and go at run time (MCP servers). The loop loads them at the start of each run (servers start
 * then, lazily) and swaps them into the registry under the source's id.
 */
export interface ToolSource {
  id: string;
  /** The source's tools now; must honour `signal` and never reject for one server's failure. */
  load(signal: AbortSignal): Promise<Tool[]>;
}
