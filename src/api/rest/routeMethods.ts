import type { FastifyInstance } from 'fastify';

/**
 * The methods each registered path answers, so a wrong method on an existing path gets 405 with
 * `Allow` instead of 404. Call before routes are registered: it learns them as they are added.
 */
export function trackRouteMethods(app: FastifyInstance) {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    // `/seq/:org/:project` → one path segment per parameter. A trailing slash is optional as in
    // Fastify, except on a route registered with one (`/api/v1/mcp/`): that one needs it.
    const slash = route.url.length > 1 && route.url.endsWith('/') ? '/' : '/?';
    const source = route.url.replace(/\/$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/\\]+/g, '[^/]+');
    let entry = routes.find((r) => r.pattern.source === `^${source}${slash}$`);
    if (!entry) routes.push((entry = { pattern: new RegExp(`^${source}${slash}$`), methods: new Set() }));
    for (const method of [route.method].flat()) entry.methods.add(method);
  });
  /** The methods allowed on `path` (without its query), or [] when no route has that path. */
  return (path: string): string[] => {
    const methods = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    if (methods.size > 0) methods.add('OPTIONS');
    return [...methods].sort();
  };
}
