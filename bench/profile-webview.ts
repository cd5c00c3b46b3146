// Diagnostic (not part of the suite): CPU profile of the webview while it streams 2,000 tokens/s over a
// 1,000-message transcript. Prints the top self-time functions. node --import tsx bench/profile-webview.ts
import { assistant, manyItems, state } from '../test/webview/fixtures';
import { openPanel, startHarness } from '../test/webview/harness';

async function main() {
  const h = await startHarness();
  try {
    const p = await openPanel(h);
    const items = manyItems(1000);
    items.push(assistant('stream', '', true));
    await p.host(state({ seq: 1, items, status: { state: 'running' } }));
    const cdp = await h.context.newCDPSession(p.page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    await p.page.evaluate(`(async () => {
      const vocab = ['The ', 'client ', '\`retry()\` ', '**note** ', 'this:\\n\\n', '- item ', 'one\\n', '\`\`\`ts\\n', 'const x = 1;\\n', '\`\`\`\\n\\n', 'then ', 'tests.\\n'];
      let seq = 1, tokens = 0; const start = performance.now();
      await new Promise((resolve) => { const t = setInterval(() => {
        const el = performance.now() - start; const due = Math.min(Math.floor(el * 2), 8000); let d = '';
        for (; tokens < due; tokens++) d += vocab[tokens % vocab.length];
        if (d) window.postMessage({ type: 'patch', seq: ++seq, ops: [{ op: 'delta', id: 'stream', field: 'text', delta: d }] }, '*');
        if (el > 4000) { clearInterval(t); resolve(); } }, 16); });
    })()`);
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; }[]; samples: number[]; timeDeltas: number[] } };
    const self = new Map<number, number>();
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    const byFn = new Map<string, number>();
    for (const n of profile.nodes) {
      const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
      byFn.set(key, (byFn.get(key) ?? 0) + (self.get(n.id) ?? 0));
    }
    const total = [...byFn.values()].reduce((a, b) => a + b, 0);
    for (const [k, v] of [...byFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${(v / 1000).toFixed(0).padStart(6)} ms ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
  } finally {
    await h.close();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
