import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';

/**
 * The Content-Security-Policy of every page and asset of the browser faces: nothing but the
 * daemon's own files, no inline script or style, no framing, forms posting home only.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every answer of the console and the portal (pages, assets, their JSON). */
export function webSecurityHeaders(): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.set('content-security-policy', CONTENT_SECURITY_POLICY);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('x-frame-options', 'DENY');
    ctx.set('referrer-policy', 'no-referrer');
    ctx.set('cross-origin-opener-policy', 'same-origin');
    ctx.set('cross-origin-resource-policy', 'same-origin');
    await next();
    // Assets set their own caching; pages and JSON never stay in a cache (they show live data).
    if (!ctx.response.get('cache-control')) ctx.set('cache-control', 'no-store');
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

/** The folder `web/<name>` of the package (the same from src/ under vitest and from dist/). */
export function webDir(name: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'web')))
      return path.join(dir, 'web', name);
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`the web/ folder of the gateway was not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/**
 * The files of one folder of web/, read once at start (they are small) with their gzip form and
 * an ETag. Only names listed in the folder can be served: a path is never joined from input.
 */
export class AssetFolder {
  private readonly assets = new Map<string, Asset>();

  constructor(readonly dir: string) {
    for (const name of fs.readdirSync(dir)) {
      const type = TYPES[path.extname(name)];
      if (type === undefined) continue;
      const body = fs.readFileSync(path.join(dir, name));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      this.assets.set(name, { type, body, gzip: gzipSync(body, { level: 9 }), etag });
    }
  }

  has(name: string): boolean {
    return this.assets.has(name);
  }

  /**
   * Middleware answering the named file (the route's `:file` parameter when no name is given), or
   * nothing (404 from the router) for a name the folder does not hold. Assets are revalidated by
   * ETag on each load; pages are never cached.
   */
  serve(fixedName?: string): Middleware<AppState> {
    return async (ctx, next) => {
      const name = fixedName ?? (ctx as unknown as { params: Record<string, string> }).params.file ?? '';
      const asset = this.assets.get(name);
      if (asset === undefined) return void (await next());
      const page = name.endsWith('.html');
      ctx.set('cache-control', page ? 'no-store' : 'no-cache');
      ctx.set('etag', asset.etag);
      ctx.vary('accept-encoding');
      ctx.type = asset.type;
      if (!page && ctx.get('if-none-match') === asset.etag) {
        ctx.status = 304;
        return;
      }
      if (/\bgzip\b/.test(ctx.get('accept-encoding'))) {
        ctx.set('content-encoding', 'gzip');
        ctx.body = asset.gzip;
      } else {
        ctx.body = asset.body;
      }
    };
  }
}
