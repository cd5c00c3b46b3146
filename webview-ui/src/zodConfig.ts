// Imported first by main.ts: zod decides at schema construction whether to JIT-compile parsers with
// `new Function`. Under the webview's strict CSP (no eval) that probe logs a violation, so turn it off.
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';

z.config({ jitless: true });
