// What an OpenAI-compatible endpoint says about itself: which server it is (Ollama, LM Studio, vLLM, llama.cpp,
// OpenRouter), which models it serves, each model's context window, and a connection check with messages a
// user can act on. Also finds Ollama / LM Studio running on their default ports. No 'vscode'; every network
// call has a short timeout and an injectable fetch (tests point it at the loopback server).
import { windowFromModelEntry } from './models';
import { errorText } from '../core/error-text';

/** Key used when an OpenAI-compatible server on this machine needs none (the SDK insists on one). */
export const PLACEHOLDER_KEY = 'forge-no-key';

/** The URL names this machine (localhost, ::1, 127.x): a local server, which needs no API key. */
export function isLoopbackUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

type ServerFlavour = 'ollama' | 'lmstudio' | 'vllm' | 'llamacpp' | 'openrouter' | 'openai-compatible';

const FLAVOUR_LABELS: Record<ServerFlavour, string> = {
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  vllm: 'vLLM',
  llamacpp: 'llama.cpp',
  openrouter: 'OpenRouter',
  'openai-compatible': 'OpenAI-compatible server',
};

/** Default ports of the servers that are found without typing anything. */
const DEFAULT_LOCAL_PORTS = { ollama: 11434, lmstudio: 1234 } as const;

/**
 * Ollama's runtime context when neither the model (num_ctx parameter) nor the running instance says otherwise.
 * Ollama sizes it from VRAM (4k below 24 GiB, more above) and silently truncates a longer prompt, so assuming
 * the model's trained length (often 128k+) would let the prompt be cut without compaction ever firing.
 */
export const OLLAMA_DEFAULT_RUNTIME_CTX = 4096;

interface EndpointOptions {
  /** The OpenAI-compatible root, e.g. http://127.0.0.1:11434/v1 */
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
  /** Per request (default 2500 ms). */
  timeoutMs?: number;
}

interface ContextWindowInfo {
  tokens: number;
  /** Human-readable origin, e.g. "Ollama num_ctx parameter", "vLLM max_model_len". */
  source: string;
  flavour: ServerFlavour;
  /** true when it is an assumption that may change once the model is loaded (not cached). */
  provisional?: boolean;
}

interface RemoteModel {
  id: string;
  contextWindow?: number;
  contextField?: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly body: string,
  ) {
    super(`HTTP ${status} from ${url}`);
  }
}

/** Strips a trailing slash; `root` also drops the OpenAI-compatible /v1 suffix (native APIs live beside it). */
export function normaliseBaseUrl(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '');
}
function serverRoot(baseUrl: string): string {
  return normaliseBaseUrl(baseUrl).replace(/\/v1$/, '');
}

async function request(
  url: string,
  o: EndpointOptions,
  init: { method?: string; body?: unknown } = {},
): Promise<unknown> {
  const doFetch = o.fetch ?? fetch;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`timed out after ${o.timeoutMs ?? 2500} ms`)),
    o.timeoutMs ?? 2500,
  );
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const res = await doFetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: controller.signal,
    });
    const text = await res.text();
    if (!res.ok) throw new HttpError(res.status, url, text.slice(0, 500));
    try {
      return JSON.parse(text);
    } catch {
      throw new HttpError(res.status, url, `not JSON: ${text.slice(0, 200)}`);
    }
  } finally {
    clearTimeout(timer);
  }
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
function positive(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** GET {baseUrl}/models: the OpenAI list, with any context length the server puts on the entries. */
async function listModels(o: EndpointOptions): Promise<RemoteModel[]> {
  const body = obj(await request(`${normaliseBaseUrl(o.baseUrl)}/models`, o));
  const data = Array.isArray(body?.data) ? body.data : Array.isArray(body?.models) ? body.models : [];
  const out: RemoteModel[] = [];
  for (const raw of data) {
    const e = obj(raw);
    const id = typeof e?.id === 'string' ? e.id : typeof e?.name === 'string' ? e.name : undefined;
    if (!e || !id) continue;
    const w = windowFromModelEntry(e);
    out.push({ id, ...(w ? { contextWindow: w.tokens, contextField: w.field } : {}) });
  }
  return out;
}

/** Ollama: POST /api/show. num_ctx (Modelfile parameter) wins; else the loaded instance's; else min(trained, default). */
async function ollamaWindow(o: EndpointOptions, model: string): Promise<ContextWindowInfo | undefined> {
  const root = serverRoot(o.baseUrl);
  const show = obj(await request(`${root}/api/show`, o, { method: 'POST', body: { model, name: model } }));
  if (!show || (!('model_info' in show) && !('parameters' in show) && !('modelfile' in show))) return undefined;
  const params = typeof show.parameters === 'string' ? show.parameters : '';
  const numCtx = positive(/^\s*num_ctx\s+(\d+)/m.exec(params)?.[1]);
  if (numCtx) return { tokens: numCtx, source: 'Ollama num_ctx parameter', flavour: 'ollama' };
  const info = obj(show.model_info) ?? {};
  const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
  let trained = arch ? positive(info[`${arch}.context_length`]) : undefined;
  if (!trained) {
    const key = Object.keys(info).find((k) => k.endsWith('.context_length'));
    trained = key ? positive(info[key]) : undefined;
  }
  // A loaded model reports the context it actually runs with (newer Ollama: /api/ps context_length).
  try {
    const ps = obj(await request(`${root}/api/ps`, o));
    const running = (Array.isArray(ps?.models) ? ps.models : [])
      .map(obj)
      .find((m) => m && (m.name === model || m.model === model));
    const loaded = positive(running?.context_length);
    if (loaded) return { tokens: loaded, source: 'Ollama loaded context (api/ps)', flavour: 'ollama' };
  } catch {
    // older Ollama or not loaded: fall through
  }
  if (trained && trained <= OLLAMA_DEFAULT_RUNTIME_CTX)
    return { tokens: trained, source: 'Ollama model_info context_length', flavour: 'ollama' };
  return {
    tokens: OLLAMA_DEFAULT_RUNTIME_CTX,
    source: `Ollama default runtime context (model trained for ${trained ?? 'unknown'}; set num_ctx or OLLAMA_CONTEXT_LENGTH, or forge.contextWindow)`,
    flavour: 'ollama',
    provisional: true,
  };
}

/** LM Studio: GET /api/v0/models (loaded_context_length, else max_context_length); 0.4+ /api/v1/models. */
async function lmStudioWindow(o: EndpointOptions, model: string): Promise<ContextWindowInfo | undefined> {
  const root = serverRoot(o.baseUrl);
  try {
    const body = obj(await request(`${root}/api/v0/models`, o));
    const entry = (Array.isArray(body?.data) ? body.data : []).map(obj).find((e) => e?.id === model);
    if (entry) {
      const loaded = positive(entry.loaded_context_length);
      if (loaded) return { tokens: loaded, source: 'LM Studio loaded_context_length', flavour: 'lmstudio' };
      const max = positive(entry.max_context_length);
      if (max)
        return {
          tokens: max,
          source: 'LM Studio max_context_length (not loaded yet)',
          flavour: 'lmstudio',
          provisional: true,
        };
    }
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
  }
  const v1 = obj(await request(`${root}/api/v1/models`, o));
  const entry = (Array.isArray(v1?.models) ? v1.models : []).map(obj).find((e) => e?.key === model || e?.id === model);
  if (!entry) return undefined;
  const instance = (Array.isArray(entry.loaded_instances) ? entry.loaded_instances : []).map(obj)[0];
  const loaded = positive(obj(instance?.config)?.context_length);
  if (loaded) return { tokens: loaded, source: 'LM Studio loaded context_length', flavour: 'lmstudio' };
  const max = positive(entry.max_context_length);
  return max
    ? { tokens: max, source: 'LM Studio max_context_length (not loaded yet)', flavour: 'lmstudio', provisional: true }
    : undefined;
}

/** llama.cpp server: GET /props -> default_generation_settings.n_ctx (the runtime context). */
async function llamaCppWindow(o: EndpointOptions): Promise<ContextWindowInfo | undefined> {
  const props = obj(await request(`${serverRoot(o.baseUrl)}/props`, o));
  const n = positive(obj(props?.default_generation_settings)?.n_ctx) ?? positive(props?.n_ctx);
  return n ? { tokens: n, source: 'llama.cpp n_ctx (/props)', flavour: 'llamacpp' } : undefined;
}

function flavourOfField(baseUrl: string, field: string): ServerFlavour {
  if (/openrouter\.ai/i.test(baseUrl)) return 'openrouter';
  if (field === 'max_model_len') return 'vllm';
  if (field.startsWith('meta.')) return 'llamacpp';
  return 'openai-compatible';
}

/**
 * The model's context window as the server reports it, or undefined when it says nothing. Order: the
 * /v1/models entry (vLLM max_model_len, OpenRouter context_length, generic fields), then the native APIs of
 * Ollama, LM Studio and llama.cpp, tried together (only the server that is there answers).
 */
export async function discoverContextWindow(
  o: EndpointOptions & { model: string; models?: RemoteModel[] },
): Promise<ContextWindowInfo | undefined> {
  let models = o.models;
  if (!models) {
    try {
      models = await listModels(o);
    } catch {
      models = [];
    }
  }
  const entry = models.find((m) => m.id === o.model);
  if (entry?.contextWindow && entry.contextField && !entry.contextField.startsWith('meta.')) {
    const flavour = flavourOfField(o.baseUrl, entry.contextField);
    return { tokens: entry.contextWindow, source: `${FLAVOUR_LABELS[flavour]} ${entry.contextField}`, flavour };
  }
  const quiet = <T>(p: Promise<T>) => p.catch(() => undefined);
  const [ollama, lmstudio, llamacpp] = await Promise.all([
    quiet(ollamaWindow(o, o.model)),
    quiet(lmStudioWindow(o, o.model)),
    quiet(llamaCppWindow(o)),
  ]);
  const found = ollama ?? lmstudio ?? llamacpp;
  if (found) return found;
  // llama.cpp's /v1/models carries the trained length only (meta.n_ctx_train): better than nothing.
  if (entry?.contextWindow && entry.contextField) {
    return {
      tokens: entry.contextWindow,
      source: `llama.cpp ${entry.contextField}`,
      flavour: 'llamacpp',
      provisional: true,
    };
  }
  return undefined;
}

/** Context windows per endpoint + model; provisional answers are not kept (they change once a model loads). */
export class ContextWindowCache {
  private readonly known = new Map<string, ContextWindowInfo | undefined>();

  static key(baseUrl: string, model: string): string {
    return `${normaliseBaseUrl(baseUrl)}#${model}`;
  }

  peek(baseUrl: string, model: string): ContextWindowInfo | undefined {
    return this.known.get(ContextWindowCache.key(baseUrl, model));
  }

  async get(o: EndpointOptions & { model: string; models?: RemoteModel[] }): Promise<ContextWindowInfo | undefined> {
    const key = ContextWindowCache.key(o.baseUrl, o.model);
    if (this.known.has(key)) return this.known.get(key);
    const info = await discoverContextWindow(o);
    if (info && !info.provisional) this.known.set(key, info);
    return info;
  }

  clear(): void {
    this.known.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Connection check

type EndpointProblem = 'refused' | 'timeout' | 'wrong_base_url' | 'auth' | 'model_missing' | 'http' | 'unreachable';

export interface EndpointCheck {
  ok: boolean;
  /** Model ids the endpoint lists (empty when it could not be asked). */
  models: RemoteModel[];
  problem?: EndpointProblem;
  /** What is wrong and what to do, for the panel / picker. */
  message?: string;
}

function errorCode(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let i = 0; cur && i < 5; i++) {
    const c = cur as { code?: unknown; cause?: unknown; name?: unknown };
    if (typeof c.code === 'string') return c.code;
    cur = c.cause;
  }
  return undefined;
}

/** Which server a URL most likely points at, from its port / host (for messages only). */
function guessFlavour(baseUrl: string): ServerFlavour {
  try {
    const u = new URL(baseUrl);
    if (/openrouter\.ai$/i.test(u.hostname)) return 'openrouter';
    if (u.port === String(DEFAULT_LOCAL_PORTS.ollama)) return 'ollama';
    if (u.port === String(DEFAULT_LOCAL_PORTS.lmstudio)) return 'lmstudio';
    if (u.port === '8000') return 'vllm';
    if (u.port === '8080') return 'llamacpp';
  } catch {
    // not a URL: reported by checkEndpoint
  }
  return 'openai-compatible';
}

function isRunningHint(baseUrl: string): string {
  const f = guessFlavour(baseUrl);
  if (f === 'ollama') return 'is Ollama running? (start it with "ollama serve")';
  if (f === 'lmstudio') return 'is LM Studio\'s server started? (Developer tab, or "lms server start")';
  if (f === 'openai-compatible' || f === 'vllm' || f === 'llamacpp') return `is the ${FLAVOUR_LABELS[f]} running?`;
  return 'check the URL and your connection';
}

/**
 * Asks the endpoint for its models: tells apart nothing listening, a wrong base URL (the /models list is not
 * there: the URL must end in /v1), a bad key, and a model the server does not have (listing the ones it has).
 */
export async function checkEndpoint(o: EndpointOptions & { model?: string }): Promise<EndpointCheck> {
  const base = normaliseBaseUrl(o.baseUrl);
  try {
    const u = new URL(base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    return {
      ok: false,
      models: [],
      problem: 'unreachable',
      message: `"${o.baseUrl}" is not a URL; it should look like http://127.0.0.1:11434/v1`,
    };
  }
  let models: RemoteModel[];
  try {
    models = await listModels({ ...o, baseUrl: base });
  } catch (err) {
    if (err instanceof HttpError) {
      if (err.status === 401 || err.status === 403) {
        return {
          ok: false,
          models: [],
          problem: 'auth',
          message: `${base} refused the API key (HTTP ${err.status}); run "Forge: Set API Key".`,
        };
      }
      if (err.status === 404 || err.status === 405 || /not JSON/.test(err.body)) {
        const hint = /\/v1$/.test(base)
          ? 'check the path: most servers serve the API under /v1'
          : `it should end in /v1 (e.g. ${serverRoot(base)}/v1)`;
        return {
          ok: false,
          models: [],
          problem: 'wrong_base_url',
          message: `Wrong base URL: ${base}/models is not there (HTTP ${err.status}); ${hint}.`,
        };
      }
      return {
        ok: false,
        models: [],
        problem: 'http',
        message: `${base}/models answered HTTP ${err.status}: ${err.body.slice(0, 200)}`,
      };
    }
    const code = errorCode(err);
    if (code === 'ECONNREFUSED') {
      return {
        ok: false,
        models: [],
        problem: 'refused',
        message: `Nothing is listening at ${base}; ${isRunningHint(base)}`,
      };
    }
    const aborted =
      (err as { name?: string })?.name === 'AbortError' || /timed out/.test(String((err as Error)?.message ?? err));
    if (aborted) {
      return {
        ok: false,
        models: [],
        problem: 'timeout',
        message: `${base} did not answer within ${o.timeoutMs ?? 2500} ms; ${isRunningHint(base)}`,
      };
    }
    return {
      ok: false,
      models: [],
      problem: 'unreachable',
      message: `Could not reach ${base} (${code ?? errorText(err)}); ${isRunningHint(base)}`,
    };
  }
  if (
    o.model &&
    models.length > 0 &&
    !models.some((m) => m.id === o.model || m.id === `${o.model}:latest` || `${m.id}:latest` === o.model)
  ) {
    const names = models.map((m) => m.id);
    const shown = names.slice(0, 12).join(', ') + (names.length > 12 ? `, … (${names.length} in all)` : '');
    const pull = guessFlavour(base) === 'ollama' ? ` (or run "ollama pull ${o.model}")` : '';
    return {
      ok: false,
      models,
      problem: 'model_missing',
      message: `${base} has no model "${o.model}". Available: ${shown}. Pick one with "Forge: Select Model"${pull}.`,
    };
  }
  return { ok: true, models };
}

// ---------------------------------------------------------------------------------------------------------
// Auto-detection of local servers on their default ports

export interface DetectedServer {
  flavour: 'ollama' | 'lmstudio';
  label: string;
  /** OpenAI-compatible base URL to save in forge.baseUrl. */
  baseUrl: string;
  models: string[];
}

export interface DetectOptions {
  host?: string;
  ports?: { ollama?: number; lmstudio?: number };
  /** Per probe (default 400 ms): a closed port answers at once, a firewall drop must not hold anything up. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Probes Ollama (GET /api/tags) and LM Studio (GET /v1/models) on 127.0.0.1; never throws. */
export async function detectLocalServers(o: DetectOptions = {}): Promise<DetectedServer[]> {
  const host = o.host ?? '127.0.0.1';
  const ports = { ...DEFAULT_LOCAL_PORTS, ...o.ports };
  const common = { fetch: o.fetch, timeoutMs: o.timeoutMs ?? 400 };
  const ollama = async (): Promise<DetectedServer | undefined> => {
    const root = `http://${host}:${ports.ollama}`;
    const tags = obj(await request(`${root}/api/tags`, { ...common, baseUrl: root }));
    if (!tags || !Array.isArray(tags.models)) return undefined;
    const models = tags.models
      .map(obj)
      .map((m) => (typeof m?.name === 'string' ? m.name : typeof m?.model === 'string' ? m.model : ''))
      .filter(Boolean);
    return { flavour: 'ollama', label: `Ollama at ${host}:${ports.ollama}`, baseUrl: `${root}/v1`, models };
  };
  const lmstudio = async (): Promise<DetectedServer | undefined> => {
    const baseUrl = `http://${host}:${ports.lmstudio}/v1`;
    const models = await listModels({ ...common, baseUrl });
    return {
      flavour: 'lmstudio',
      label: `LM Studio at ${host}:${ports.lmstudio}`,
      baseUrl,
      models: models.map((m) => m.id),
    };
  };
  const results = await Promise.all([ollama().catch(() => undefined), lmstudio().catch(() => undefined)]);
  return results.filter((r): r is DetectedServer => r !== undefined);
}
