// The network side of web_fetch and web_search. A fetch resolves the host itself, refuses private, loopback and
// link-local addresses (unless the user allows them) and connects to the very address it checked (no DNS rebinding
// between check and connect); redirects are followed by hand, each hop checked again, and one to another host stops
// (the model asks for it, and the user approves that host). Time and size are limited; HTML becomes Markdown.
import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { ToolError } from '../../core/tools/types';
import type { FetchedPage, SearchHit, WebClient } from '../../core/tools/builtin/web';
import { isNonPublic, normalizeIp } from '../sandbox/network-allowlist';
import { htmlTitle, htmlToMarkdown } from './html-markdown';
import { searchWith, type SearchProviderConfig } from './web-search';
import { errorText } from '../../core/error-text';

export interface WebClientOptions {
  /** Private, loopback and link-local addresses may be fetched (the user's setting; off by default). */
  allowPrivate?: () => boolean;
  /** What the setting is called on this surface, for the refusal. */
  privateSetting?: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** The search provider the user configured (none by default). */
  search?: () => SearchProviderConfig | undefined;
  /** Name resolution (tests); default dns.lookup with all addresses. */
  resolve?: (host: string) => Promise<string[]>;
  /** Which addresses count as private (tests); default: loopback, private, link-local, CGNAT, reserved. */
  nonPublic?: (ip: string) => boolean;
  userAgent?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;

interface Hop {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

const TEXTUAL = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|x-yaml|yaml|toml|ld\+json|.*\+json|.*\+xml))/i;

function defaultResolve(host: string): Promise<string[]> {
  return dns.promises.lookup(host, { all: true, verbatim: true }).then((r) => r.map((a) => a.address));
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1]?.toLowerCase() ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

export class NodeWebClient implements WebClient {
  constructor(private readonly opts: WebClientOptions = {}) {}

  searchProvider(): string | undefined {
    const c = this.opts.search?.();
    return c ? c.label : undefined;
  }

  async search(query: string, count: number, signal: AbortSignal): Promise<SearchHit[]> {
    const c = this.opts.search?.();
    if (!c) throw new ToolError('No web search provider is configured.');
    return searchWith(c, query, count, signal, this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  async fetch(url: string, signal: AbortSignal): Promise<FetchedPage> {
    const deadline = Date.now() + (this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let current = new URL(url);
    const host = current.hostname.toLowerCase();
    for (let hop = 0; ; hop++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:')
        throw new ToolError(`web_fetch reads http and https URLs only (a redirect led to ${current.protocol}).`);
      if (current.username || current.password) throw new ToolError('web_fetch does not send credentials in URLs.');
      const address = await this.checkedAddress(current.hostname);
      const res = await this.request(current, address, signal, deadline);
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location) {
        if (hop >= (this.opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS))
          throw new ToolError(`${url} redirects more than ${this.opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS} times.`);
        const next = new URL(location, current);
        if (next.hostname.toLowerCase() !== host)
          throw new ToolError(
            `${current.href} redirects to ${next.href}, on another host. Call web_fetch with that URL if you need it (each host is approved on its own).`,
          );
        current = next;
        continue;
      }
      return this.page(current, res);
    }
  }

  private page(url: URL, res: Hop): FetchedPage {
    const contentType = String(res.headers['content-type'] ?? '');
    const mime = contentType.split(';')[0]!.trim().toLowerCase();
    if (mime && !TEXTUAL.test(mime))
      throw new ToolError(`${url.href} is ${mime}, not a text page; web_fetch reads HTML and text only.`);
    const raw = decode(res.body, contentType);
    const isHtml = mime === 'text/html' || mime === 'application/xhtml+xml' || (!mime && /<html[\s>]/i.test(raw));
    const title = isHtml ? htmlTitle(raw) : undefined;
    return {
      url: url.href,
      status: res.status,
      contentType: mime,
      text: isHtml ? htmlToMarkdown(raw) : raw,
      ...(title ? { title } : {}),
      truncated: res.truncated,
    };
  }

  /** One address of `host` that may be reached: public, or any when the user allows private addresses. */
  private async checkedAddress(host: string): Promise<string> {
    const bare = host.replace(/^\[|\]$/g, '');
    const ip = normalizeIp(bare);
    let found: string[];
    if (ip) found = [ip];
    else {
      try {
        found = (await (this.opts.resolve ?? defaultResolve)(bare)).map((a) => normalizeIp(a) ?? a);
      } catch (err) {
        throw new ToolError(`Could not resolve ${host} (${(err as NodeJS.ErrnoException).code ?? String(err)}).`);
      }
    }
    if (!found.length) throw new ToolError(`${host} resolves to no address.`);
    if (this.opts.allowPrivate?.()) return found[0]!;
    const nonPublic = this.opts.nonPublic ?? isNonPublic;
    const publicOnes = found.filter((a) => !nonPublic(a));
    if (!publicOnes.length)
      throw new ToolError(
        `Refused: ${host} is a private, loopback or link-local address (${found[0]}). web_fetch reads public pages only${this.opts.privateSetting ? ` unless the user turns on ${this.opts.privateSetting}` : ''}.`,
      );
    return publicOnes[0]!;
  }

  private request(url: URL, address: string, signal: AbortSignal, deadline: number): Promise<Hop> {
    const maxBytes = this.opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const family = net.isIPv6(address) ? 6 : 4;
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise<Hop>((resolve, reject) => {
      const left = deadline - Date.now();
      if (left <= 0) return reject(new ToolError(`${url.href} did not answer in time.`));
      const req = mod.request(
        url,
        {
          method: 'GET',
          headers: {
            'user-agent': this.opts.userAgent ?? 'Forge web_fetch (VS Code agent)',
            accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
            'accept-encoding': 'identity',
          },
          // Connect to the address that was checked, never to a second lookup's answer.
          lookup: ((_h: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
            o?.all ? cb(null, [{ address, family }]) : cb(null, address, family)) as never,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          let truncated = false;
          res.on('data', (d: Buffer) => {
            if (truncated) return;
            const room = maxBytes - size;
            if (d.length >= room) {
              chunks.push(d.subarray(0, room));
              size = maxBytes;
              truncated = true;
              finish();
              req.destroy();
              return;
            }
            chunks.push(d);
            size += d.length;
          });
          let done = false;
          const finish = () => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated });
          };
          res.on('end', finish);
          res.on('error', (e) => (done ? undefined : fail(e)));
          // A redirect's body is not read.
          if ((res.statusCode ?? 0) >= 300 && (res.statusCode ?? 0) < 400) {
            finish();
            req.destroy();
          }
        },
      );
      let failed = false;
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        clearTimeout(timer);
        if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
        if (e instanceof ToolError) return reject(e);
        reject(new ToolError(`Could not fetch ${url.href}: ${errorText(e)}`));
      };
      const timer = setTimeout(() => {
        fail(
          new ToolError(
            `${url.href} took longer than ${Math.round((this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s; stopped.`,
          ),
        );
        req.destroy();
      }, left);
      req.on('error', fail);
      req.end();
    });
  }
}
