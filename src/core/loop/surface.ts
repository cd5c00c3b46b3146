// The words a surface uses for its own controls: the extension names its commands and settings, the CLI its flags
// and environment variables. Every message core writes for a person or the model that says "change this" takes
// them from here, so `forge run` never sends anyone to a VS Code setting (and the panel never to a flag).
import type { ModelError } from '../model/errors';

export interface SurfaceControls {
  /** Where the agent works, in the role prompt ("the user's VS Code workspace"). */
  workplace: string;
  /** How to set or fix the API key. */
  setApiKey: string;
  /** How to pick another model. */
  selectModel: string;
  /** The token budget per run. */
  tokenBudget: string;
  /** The wait for a silent model stream. */
  streamIdleTimeout: string;
  /** The model used when the primary keeps failing. */
  fallbackModel: string;
}

export const VSCODE_CONTROLS: SurfaceControls = {
  workplace: "the user's VS Code workspace",
  setApiKey: 'run "Forge: Set API Key"',
  selectModel: '"Forge: Select Model"',
  tokenBudget: 'forge.tokenBudget',
  streamIdleTimeout: 'forge.streamIdleTimeoutSeconds',
  fallbackModel: 'forge.fallbackModel',
};

/** What the user can do about a model error, in the surface's words (ModelError.advice is the extension's). */
export function modelAdvice(err: ModelError, c: SurfaceControls = VSCODE_CONTROLS): string {
  switch (err.kind) {
    case 'auth':
      return `Check the API key: ${c.setApiKey}.`;
    case 'bad_request':
      return `The provider rejected the request; check the model name and settings (${c.selectModel}).`;
    case 'stall':
      return `The model stopped sending data; Forge retries the step. Raise ${c.streamIdleTimeout} for slow local models, or set ${c.fallbackModel}.`;
    default:
      return err.advice;
  }
}
