import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { HttpRequest, HttpResponse } from './http-types';

/** Where `nx run ui:build` writes the bundle, from this file's folder (Lanner runs from its sources). */
const BUNDLE_DIR = resolve(__dirname, '..', '..', '..', '..', '..', 'apps', 'ui', 'dist');

/** Paths the web UI never answers: the API, health, metrics and the explorer keep their own 404s. */
const NOT_UI = /^\/(api|health|metrics)(\/|$)/;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Text files are sent gzipped to a browser that takes it (the initial JavaScript shrinks to about a third). */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

/** Vite names every file under assets/ by its content hash: such a file never changes, so browsers keep it. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current assets: revalidated on every load, so a new bundle is picked up at once. */
const REVALIDATE = 'no-cache';

type Next = (error?: unknown) => void;

/**
 * Serves the web UI's bundle at `/`: its files, and index.html for every other
 * GET outside `/api` (the UI's router owns those paths). Registered when the
 * module initialises, that is after every controller's route, so the API and
 * health routes always come first; what is left falls through to Nest's 404.
 */
@Injectable()
export class WebUi implements OnModuleInit {
  private readonly bundleDir = BUNDLE_DIR;
  /** Each text file compressed once, kept while its size and time are the same (a rebuild replaces it). */
  private readonly gzipped = new Map<string, { stamp: string; body: Buffer }>();

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter as unknown as {
      use(handler: (request: HttpRequest, response: HttpResponse, next: Next) => void): void;
    };
    adapter.use((request, response, next) => this.serve(request, response, next));
  }

  private serve(request: HttpRequest, response: HttpResponse, next: Next): void {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    const pathname = decodePath(request.originalUrl ?? request.url ?? '/');
    if (pathname === undefined || NOT_UI.test(pathname)) return next();
    const index = join(this.bundleDir, 'index.html');
    if (!existsSync(index)) return this.notBuilt(response);
    const file = this.fileFor(pathname);
    const gzip = acceptsGzip(request);
    if (file) return this.send(response, file, request.method === 'HEAD', gzip);
    // A missing asset is a 404, not the page: a stale tab asking for an old bundle must not get HTML as JavaScript.
    if (pathname.startsWith('/assets/') || extname(pathname) !== '') return next();
    this.send(response, index, request.method === 'HEAD', gzip);
  }

  /** The bundle's file for a path, never one outside the bundle's folder. */
  private fileFor(pathname: string): string | undefined {
    if (pathname === '/') return undefined;
    const file = normalize(join(this.bundleDir, pathname));
    if (!file.startsWith(this.bundleDir + sep)) return undefined;
    try {
      return statSync(file).isFile() ? file : undefined;
    } catch {
      return undefined;
    }
  }

  private send(response: HttpResponse, file: string, headOnly: boolean, gzip: boolean): void {
    const isIndex = file === join(this.bundleDir, 'index.html');
    const compressible = COMPRESSIBLE.has(extname(file));
    response.statusCode = 200;
    response.setHeader('Content-Type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
    response.setHeader('Cache-Control', isIndex ? REVALIDATE : file.includes(`${sep}assets${sep}`) ? IMMUTABLE : REVALIDATE);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    if (compressible) response.setHeader('Vary', 'Accept-Encoding');
    if (compressible && gzip) {
      const body = this.gzippedBody(file);
      response.setHeader('Content-Encoding', 'gzip');
      response.setHeader('Content-Length', body.length);
      response.end(headOnly ? undefined : body);
      return;
    }
    response.setHeader('Content-Length', statSync(file).size);
    if (headOnly) {
      response.end();
      return;
    }
    createReadStream(file)
      .on('error', () => response.destroy())
      .pipe(response);
  }

  private gzippedBody(file: string): Buffer {
    const stats = statSync(file);
    const stamp = `${stats.size}:${stats.mtimeMs}`;
    const kept = this.gzipped.get(file);
    if (kept?.stamp === stamp) return kept.body;
    const body = gzipSync(readFileSync(file), { level: 9 });
    this.gzipped.set(file, { stamp, body });
    return body;
  }

  private notBuilt(response: HttpResponse): void {
    response.statusCode = 503;
    response.setHeader('Content-Type', 'text/plain; charset=utf-8');
    response.setHeader('Cache-Control', 'no-store');
    response.end(
      'The Lanner web UI is not built. Build it with `npx nx run ui:build` (`npm start` does so when it is missing); the API is under /api.\n',
    );
  }
}

/** Whether the request's Accept-Encoding names gzip (without `;q=0`). */
function acceptsGzip(request: HttpRequest): boolean {
  const header = request.headers['accept-encoding'];
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text.split(',').some((entry) => {
    const [coding, ...parameters] = entry.trim().toLowerCase().split(';');
    return (coding === 'gzip' || coding === '*') && !parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter));
  });
}

/** The URL's path, decoded; undefined for a malformed one (left to the 404). */
function decodePath(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url, 'http://ui').pathname);
  } catch {
    return undefined;
  }
}
