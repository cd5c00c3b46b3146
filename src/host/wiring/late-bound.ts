// Activation builds the tools before the panel and both before the Controller, yet the tools need the current
// task and the storage needs the panel to speak. Those pieces reach forward through here: each field is
// undefined until activate() (or the background initialisation) sets it.
import type { ForgePanelProvider } from '../../panel/provider';
import type { Controller } from '../controller/forge-controller';
import type { Recovery } from '../controller/recovery';

export class LateBound {
  panel: ForgePanelProvider | undefined;
  controller: Controller | undefined;
  recovery: Recovery | undefined;

  /** The open task (edits, the ecosystem strip); none before the Controller exists. */
  readonly currentTaskId = (): string | undefined => this.controller?.manager.current.id;

  /** A message for the user: the open task's transcript, or the panel's placeholder transcript before there is one. */
  readonly show = (message: string): void => {
    if (this.controller) this.controller.manager.note(message);
    else this.panel?.bridge.getTranscript().addError(message, ['show_logs']);
  };
}
