// Loads Node's fetch ahead of the first model request. The model SDKs send through the global fetch, whose
// implementation (undici, its HTTP parser compiled from WebAssembly) loads on the first call: about 60-300 ms of
// the first request after a window reload that later requests do not pay. Here one request to a throw-away
// server on the loopback interface pays it a few seconds after activation, while nobody waits. No network
// traffic leaves the machine, nothing is retried, and a failure only means the first request pays as before.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

let done: Promise<number | undefined> | undefined;

/** Warms fetch once per extension host; resolves with the time it took (ms), or undefined when it could not. */
export function warmFetch(): Promise<number | undefined> {
  done ??= run().catch(() => undefined);
  return done;
}

async function run(): Promise<number | undefined> {
  if (typeof fetch !== 'function') return undefined;
  const t0 = performance.now();
  const server = http.createServer((_req, res) => {
    res.setHeader('connection', 'close');
    res.end('ok');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(10_000) });
    await res.text();
    return performance.now() - t0;
  } finally {
    server.close();
    server.closeAllConnections?.();
  }
}
