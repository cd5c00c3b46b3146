// A preview that cannot be built (an apply_diff whose search text no longer matches, a file that cannot be read)
// ends the call with the tool's own result for the model: there is nothing for a person to approve.
import type { ToolResult } from './types';

export class PreviewFailed extends Error {
  constructor(readonly result: ToolResult) {
    super(result.content);
    this.name = 'PreviewFailed';
  }
}
