import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const CORE = join(__dirname, '../../src/core');
// import ... from 'vscode', import('vscode'), require('vscode'), export ... from 'vscode'
const VSCODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]vscode(?:\/[^'"]*)?['"]/m;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

export function findVscodeImports(dir: string): string[] {
  return sourceFiles(dir).filter((f) => VSCODE_IMPORT.test(readFileSync(f, 'utf8')));
}

describe('core never imports vscode', () => {
  it('the detector catches every import form', () => {
    for (const src of [
      "import * as vscode from 'vscode';",
      'const v = require("vscode");',
      "export { x } from 'vscode';",
      "await import('vscode')",
      "import 'vscode';",
      "import type { Uri } from 'vscode';",
    ]) {
      assert.ok(VSCODE_IMPORT.test(src), src);
    }
    assert.equal(VSCODE_IMPORT.test("import { z } from 'zod'; // not vscode-languageserver"), false);
  });

  it('no file under src/core imports or requires vscode', () => {
    const files = sourceFiles(CORE);
    assert.ok(files.length > 10, 'scanned the core sources');
    const offenders = findVscodeImports(CORE).map((f) => relative(CORE, f));
    assert.deepEqual(offenders, [], `src/core must stay free of 'vscode': ${offenders.join(', ')}`);
  });
});
