import { strict as assert } from 'node:assert';
import { controlPlaneMatch, isControlPlane } from '../../../../src/core/safety/control-plane';

describe('control plane', () => {
  it('covers git, VS Code, dev containers, direnv and agent files at any depth', () => {
    for (const p of [
      '.git/config',
      '.git',
      '.git/hooks/pre-commit',
      'sub/.git/config',
      '.vscode/tasks.json',
      '.vscode',
      '.devcontainer/devcontainer.json',
      '.envrc',
      'pkg/.envrc',
      '.forge/rules/a.md',
      'AGENTS.md',
      'docs/AGENTS.md',
      'CLAUDE.md',
      '.claude/settings.json',
      '.mcp.json',
      '.forgeignore',
      '.github/workflows/ci.yml',
      '.github/copilot-instructions.md',
      '.husky/pre-commit',
      '.gitmodules',
      '.npmrc',
    ]) {
      assert.ok(isControlPlane(p), p);
    }
  });
  it('sees through case, trailing dots and spaces, and HFS-ignored code points', () => {
    for (const p of [
      '.GIT/config',
      '.git./hooks/x',
      '.git /config',
      '.g\u200cit/config',
      '.VSCode/settings.json',
      'agents.MD',
    ]) {
      assert.ok(isControlPlane(p), JSON.stringify(p));
    }
  });
  it('leaves ordinary source alone', () => {
    for (const p of [
      'src/a.ts',
      'README.md',
      '.github/ISSUE_TEMPLATE/bug.md',
      '.gitignore',
      'package.json',
      'gitconfig/x',
      'my.git/x',
      'dist/index.js',
    ]) {
      assert.equal(isControlPlane(p), false, p);
    }
  });
  it('inside installed packages only a repository counts', () => {
    assert.equal(isControlPlane('node_modules/pkg/.github/workflows/ci.yml'), false);
    assert.equal(isControlPlane('node_modules/pkg/AGENTS.md'), false);
    assert.equal(isControlPlane('node_modules/pkg/.git/config'), true);
    assert.equal(isControlPlane('.venv/lib/python3.11/site-packages/x/.npmrc'), false);
  });
  it('takes extra folders such as core.hooksPath targets', () => {
    assert.equal(controlPlaneMatch('tools/hooks/pre-push', ['tools/hooks'])?.anchor, 'tools/hooks');
    assert.equal(isControlPlane('tools/hooksx/a', ['tools/hooks']), false);
  });
});
