import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ApiRoleModule } from '../api-role.module';
import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

// The OpenAPI document the api role serves, against the routes its controllers
// declare: a route, a path parameter, a body or the answers missing from the
// document (or left in it after the route went) fails here. The fuzz suite
// generates its requests from this document, so a route missing here would
// also go unfuzzed.

interface DocumentedAnswer {
  readonly content?: Record<string, { schema?: unknown }>;
}
interface DocumentedOperation {
  readonly parameters?: { name: string; in: string; required?: boolean }[];
  readonly requestBody?: { content?: Record<string, unknown> };
  readonly responses?: Record<string, DocumentedAnswer>;
}
type OpenApiPaths = Record<string, Record<string, DocumentedOperation>>;

interface DeclaredRoute {
  readonly method: string;
  /** As OpenAPI writes it: `/api/v1/{tenant}/flows/{namespace}/{id}`. */
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly readsJsonBody: boolean;
  readonly where: string;
}

type Controller = new (...args: never[]) => object;

function joinPath(...parts: string[]): string {
  return `/${parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .join('/')}`;
}

/** Every route of every controller the api module registers, read from Nest's own route metadata. */
function declaredRoutes(): DeclaredRoute[] {
  const module = ApiRoleModule.forRoot({
    database: { url: 'postgresql://unused', migrateAtStart: false },
    queue: { kind: 'in-process' },
  } as never);
  const routes: DeclaredRoute[] = [];
  for (const controller of (module.controllers ?? []) as Controller[]) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function' || name === 'constructor') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (method === undefined || sub === undefined) continue;
      const nestPath = joinPath(base, sub);
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, unknown>;
      routes.push({
        method: RequestMethod[method].toLowerCase(),
        path: nestPath.replace(/:(\w+)/g, '{$1}'),
        pathParams: [...nestPath.matchAll(/:(\w+)/g)].map((match) => match[1]),
        readsJsonBody: Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.BODY}:`)),
        where: `${controller.name}.${name}`,
      });
    }
  }
  return routes;
}

let api: ApiSpecFixture;
let paths: OpenApiPaths;

beforeAll(async () => {
  api = await startApiForSpec();
  const response = await fetch(`${api.baseUrl}/api/v1/openapi.json`);
  paths = ((await response.json()) as { paths: OpenApiPaths }).paths;
}, 120_000);

afterAll(async () => {
  await api?.close();
}, 60_000);

describe('the OpenAPI document', () => {
  it('has every route of every controller, with each path parameter, its body and its answers', () => {
    const routes = declaredRoutes();
    expect(routes.length).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const route of routes) {
      const operation = paths[route.path]?.[route.method];
      if (operation === undefined) {
        missing.push(`${route.where}: ${route.method.toUpperCase()} ${route.path} is not in the document`);
        continue;
      }
      const documented = (operation.parameters ?? []).filter((p) => p.in === 'path' && p.required === true).map((p) => p.name);
      for (const param of route.pathParams)
        if (!documented.includes(param)) missing.push(`${route.where}: path parameter '${param}' is not documented`);
      if (route.readsJsonBody && operation.requestBody === undefined)
        missing.push(`${route.where}: its JSON body is not documented`);
      if (Object.keys(operation.responses ?? {}).length === 0) missing.push(`${route.where}: no answer is documented`);
    }
    expect(missing).toEqual([]);
  });

  it('gives every answer with a body its schema: JSON from its view, bytes and event streams as such', () => {
    // Accepted (202) and No Content (204) answer no body.
    const BODILESS = new Set(['202', '204']);
    const STREAMS = new Set(['application/octet-stream', 'text/event-stream']);
    const undescribed: string[] = [];
    let jsonAnswers = 0;
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, answer] of Object.entries(operation.responses ?? {})) {
          if (!/^2\d\d$/.test(status) || BODILESS.has(status)) continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const media = Object.entries(answer.content ?? {});
          if (media.length === 0) undescribed.push(`${where}: no content`);
          for (const [type, content] of media) {
            if (type === 'application/json') jsonAnswers += 1;
            else if (!STREAMS.has(type)) undescribed.push(`${where}: unexpected ${type}`);
            if (content.schema === undefined) undescribed.push(`${where}: ${type} has no schema`);
          }
        }
      }
    }
    expect(jsonAnswers).toBeGreaterThan(40);
    expect(undescribed).toEqual([]);
  });

  it('has no operation that no route serves', () => {
    const served = new Set(declaredRoutes().map((route) => `${route.method} ${route.path}`));
    const documented = Object.entries(paths)
      .filter(([path]) => path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json')
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    expect(documented.filter((operation) => !served.has(operation))).toEqual([]);
  });

  it('declares the flow routes as taking YAML, and the run route as taking JSON or a form', () => {
    for (const [path, method] of [
      ['/api/v1/{tenant}/flows', 'post'],
      ['/api/v1/{tenant}/flows/validate', 'post'],
      ['/api/v1/{tenant}/flows/{namespace}/{id}', 'put'],
    ] as const) {
      expect(Object.keys(paths[path][method].requestBody?.content ?? {})).toEqual(['application/x-yaml']);
    }
    expect(Object.keys(paths['/api/v1/{tenant}/executions/{namespace}/{flowId}'].post.requestBody?.content ?? {})).toEqual([
      'application/json',
      'multipart/form-data',
    ]);
  });
});
