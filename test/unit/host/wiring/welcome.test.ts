import assert from 'node:assert/strict';
import {
  shouldShowWelcome,
  welcomeOnFirstStart,
  WELCOME_ACTION,
  WELCOME_MESSAGE,
  WELCOME_SHOWN_KEY,
} from '../../../../src/host/wiring/welcome';

function fakes(answer: string | undefined, initial?: unknown) {
  const state = new Map<string, unknown>(initial === undefined ? [] : [[WELCOME_SHOWN_KEY, initial]]);
  const shown: Array<{ message: string; items: string[] }> = [];
  const ran: string[] = [];
  return {
    state,
    shown,
    ran,
    deps: {
      globalState: {
        get: ((key: string) => state.get(key)) as never,
        update: async (key: string, value: unknown) => void state.set(key, value),
      },
      showInformationMessage: async (message: string, ...items: string[]) => {
        shown.push({ message, items });
        return answer;
      },
      executeCommand: async (command: string) => void ran.push(command),
    },
  };
}

describe('first-start welcome', () => {
  it('shows only while the profile flag is unset', () => {
    assert.equal(shouldShowWelcome(undefined), true);
    assert.equal(shouldShowWelcome(true), false);
  });

  it('the first activation shows the notice with "Open Forge", which opens the panel; the second is silent', async () => {
    const f = fakes(WELCOME_ACTION);
    await welcomeOnFirstStart(f.deps);
    assert.deepEqual(f.shown, [{ message: WELCOME_MESSAGE, items: [WELCOME_ACTION] }]);
    assert.deepEqual(f.ran, ['forge.openPanel']);
    assert.equal(f.state.get(WELCOME_SHOWN_KEY), true);
    await welcomeOnFirstStart(f.deps);
    assert.equal(f.shown.length, 1, 'never again in this profile');
  });

  it('dismissed: the panel stays closed and the notice is still not shown again', async () => {
    const f = fakes(undefined);
    await welcomeOnFirstStart(f.deps);
    assert.deepEqual(f.ran, []);
    await welcomeOnFirstStart(f.deps);
    assert.equal(f.shown.length, 1);
  });

  it('a profile that saw it already is silent', async () => {
    const f = fakes(WELCOME_ACTION, true);
    await welcomeOnFirstStart(f.deps);
    assert.deepEqual(f.shown, []);
  });
});
