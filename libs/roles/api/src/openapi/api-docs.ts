import { Injectable, OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ProblemSchema } from '../http/problem';
import { openApiSchemaOf } from './zod-openapi';

export const OPENAPI_DOCUMENT_PATH = '/api/v1/openapi.json';
export const API_EXPLORER_PATH = '/api/docs';

/**
 * Serves the OpenAPI document and the explorer, both without a token.
 *
 * SwaggerModule wants the Nest application, which a role module never sees
 * (runRole creates it, and standalone shares it between roles). It only reads
 * the module container, the application config and the HTTP adapter from it,
 * so those are handed over as a stand-in; the document is built at the first
 * request, when every route is registered, and covers this role's modules only.
 */
@Injectable()
export class ApiDocs implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly modules: ModulesContainer,
    private readonly includedModules: readonly (new (...args: never[]) => unknown)[],
  ) {}

  onModuleInit(): void {
    const httpAdapter = this.adapterHost.httpAdapter;
    const modules = this.modules;
    const applicationStandIn = {
      container: { getModules: () => modules, isGlobalModule: () => false },
      config: new ApplicationConfig(),
      getHttpAdapter: () => httpAdapter,
      useStaticAssets: (path: string, options: { prefix: string }) =>
        (httpAdapter as unknown as { useStaticAssets(path: string, options: { prefix: string }): void }).useStaticAssets(
          path,
          options,
        ),
    };
    let document: OpenAPIObject | undefined;
    const build = (): OpenAPIObject => {
      document ??= this.buildDocument(applicationStandIn);
      return document;
    };
    // The stand-in has what SwaggerModule reads (see above); its full type is the application's.
    SwaggerModule.setup(API_EXPLORER_PATH, applicationStandIn as unknown as Parameters<typeof SwaggerModule.setup>[1], build, {
      jsonDocumentUrl: OPENAPI_DOCUMENT_PATH,
      yamlDocumentUrl: '/api/v1/openapi.yaml',
      customSiteTitle: 'Lanner API',
    });
  }

  private buildDocument(application: object): OpenAPIObject {
    const config = new DocumentBuilder()
      .setTitle('Lanner API')
      .setDescription('Flows, executions and logs. Errors are RFC 9457 application/problem+json.')
      .setVersion('v1')
      .addBearerAuth()
      .build();
    const document = SwaggerModule.createDocument(application as Parameters<typeof SwaggerModule.createDocument>[0], config, {
      include: [...this.includedModules] as unknown as (() => void)[],
    });
    document.components = {
      ...document.components,
      schemas: { ...document.components?.schemas, Problem: openApiSchemaOf(ProblemSchema, 'output') },
    };
    return document;
  }
}
