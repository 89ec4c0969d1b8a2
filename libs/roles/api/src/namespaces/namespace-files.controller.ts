import { Controller, Delete, Get, HttpCode, Inject, Logger, Param, Put, Query, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotFound, type TenantRepositories } from '@lanner/repository';
import { errorSummary } from '@lanner/runtime';
import {
  type InternalStorage,
  namespaceFilePath,
  namespaceFilesPrefix,
  namespaceFileUri,
  parseStorageUri,
  StorageFileNotFound,
  StorageFileTooLarge,
  StorageUriError,
  type StorageUri,
} from '@lanner/storage';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { Audit } from '../audit/audit.decorator';
import { RequirePermission } from '../auth/route-access.decorator';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';
import { InvalidRequest, PayloadTooLarge, UnsupportedMediaType } from '../http/api-errors';
import type { HttpRequest, HttpResponse } from '../http/http-types';
import { parseWith } from '../http/request-body';
import { INTERNAL_STORAGE } from '../executions/executions.service';
import { BearerAuth, ProblemResponses, StreamAnswer } from '../openapi/api-docs.decorators';
import { JsonAnswer, QueryParameters } from '../openapi/zod-openapi';

const PathQuerySchema = z.object({ path: z.string().min(1).describe('The file, relative to the namespace files root') });
const FolderQuerySchema = z.object({ path: z.string().describe('A folder, relative to the namespace files root').optional() });
const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
const NamespaceFileViewSchema = z.object({
  path: z.string().describe('Relative to the namespace files root'),
  size: z.number().int().min(0).describe('bytes'),
  uri: z.string().describe('Its kestra:/// URI'),
});
type NamespaceFileView = z.output<typeof NamespaceFileViewSchema>;

/**
 * A namespace's files (Kestra's namespace files): kept in internal storage under
 * `kestra:///<namespace as folders>/_files/`, given to script tasks with
 * `namespaceFiles: { enabled: true }`. `path` is relative to that folder.
 */
@ApiTags('namespaces')
@BearerAuth()
@TenantPath()
@Controller('api/v1/:tenant/namespaces/:namespace/files')
export class NamespaceFilesController {
  private readonly logger = new Logger(NamespaceFilesController.name);
  private readonly maxBytes: number;

  constructor(
    @Inject(INTERNAL_STORAGE) private readonly storage: InternalStorage | null,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
  ) {
    this.maxBytes = options.fileInputMaxBytes ?? DEFAULT_MAX_BYTES;
  }

  @RequirePermission('file', 'read')
  @Get('directory')
  @ApiOperation({ summary: "The namespace's files below a folder (all of them without `path`), with their sizes" })
  @QueryParameters(FolderQuerySchema)
  @JsonAnswer(z.array(NamespaceFileViewSchema), { description: 'In path order' })
  @ProblemResponses(400, 403)
  async list(
    @TenantData() scope: TenantRepositories,
    @Param('namespace') namespace: string,
    @Query() query: unknown,
  ): Promise<NamespaceFileView[]> {
    const tenant = scope.tenantId;
    const { path } = parseWith(FolderQuerySchema, query, 'query');
    const folder = path === undefined || path.replace(/\/+$/, '') === '' ? undefined : path.replace(/\/+$/, '');
    const prefix = folder === undefined ? this.root(namespace) : this.uriOf(namespace, folder);
    const files = this.storage ? await this.storage.list(tenant, prefix) : [];
    return files.map((file) => ({
      path: namespaceFilePath(namespace, parseStorageUri(file.uri)),
      size: file.size,
      uri: file.uri,
    }));
  }

  @RequirePermission('file', 'read')
  @Get()
  @ApiOperation({ summary: 'Download one namespace file' })
  @QueryParameters(PathQuerySchema)
  @StreamAnswer('application/octet-stream', "The file's bytes")
  @ProblemResponses(400, 403, 404)
  async get(
    @TenantData() scope: TenantRepositories,
    @Param('namespace') namespace: string,
    @Query() query: unknown,
    @Res() response: HttpResponse,
  ): Promise<void> {
    const tenant = scope.tenantId;
    const { path } = parseWith(PathQuerySchema, query, 'query');
    const uri = this.uriOf(namespace, path);
    const found = this.storage ? await this.storage.stat(tenant, uri) : undefined;
    if (!this.storage || !found) throw new NotFound('namespace file', path);
    const content = await this.storage.get(tenant, uri).catch((error: unknown) => {
      if (error instanceof StorageFileNotFound) throw new NotFound('namespace file', path);
      throw error;
    });
    response.statusCode = 200;
    response.setHeader('content-type', 'application/octet-stream');
    response.setHeader('content-length', String(found.size));
    response.setHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(uri.segments.at(-1) ?? '')}`);
    response.setHeader('x-content-type-options', 'nosniff');
    await pipeline(content, response).catch((error: unknown) => {
      this.logger.warn({ namespace, ...errorSummary(error) }, 'namespace file download interrupted');
      response.destroy();
    });
  }

  @RequirePermission('file', 'write')
  @Audit('namespace-file.put', { id: ':namespace', namespace: ':namespace' })
  @Put()
  @ApiOperation({ summary: 'Store a namespace file (the request body, streamed), replacing the one at that path' })
  @QueryParameters(PathQuerySchema)
  @ApiConsumes('application/octet-stream')
  @JsonAnswer(NamespaceFileViewSchema, { description: 'The file as stored' })
  @ProblemResponses(400, 403, 413)
  async put(
    @TenantData() scope: TenantRepositories,
    @Param('namespace') namespace: string,
    @Query() query: unknown,
    @Req() request: HttpRequest,
  ): Promise<NamespaceFileView> {
    const tenant = scope.tenantId;
    const { path } = parseWith(PathQuerySchema, query, 'query');
    const uri = this.uriOf(namespace, path);
    const storage = this.requireStorage();
    // JSON and forms are read by the body parsers before any handler: the file must come as bytes.
    if (/^(application\/json|application\/x-www-form-urlencoded|multipart\/)/i.test(request.headers['content-type'] ?? '')) {
      throw new UnsupportedMediaType('Send the file as the request body, as application/octet-stream');
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxBytes) throw new PayloadTooLarge(this.maxBytes);
    try {
      const stored = await storage.put(tenant, uri, request, { maxBytes: this.maxBytes });
      return { path, size: stored.size, uri: stored.uri };
    } catch (error) {
      if (error instanceof StorageFileTooLarge) throw new PayloadTooLarge(this.maxBytes);
      throw error;
    }
  }

  @RequirePermission('file', 'write')
  @Audit('namespace-file.delete', { id: ':namespace', namespace: ':namespace' })
  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete one namespace file' })
  @QueryParameters(PathQuerySchema)
  @ProblemResponses(400, 403, 404)
  async remove(
    @TenantData() scope: TenantRepositories,
    @Param('namespace') namespace: string,
    @Query() query: unknown,
  ): Promise<void> {
    const tenant = scope.tenantId;
    const { path } = parseWith(PathQuerySchema, query, 'query');
    const uri = this.uriOf(namespace, path);
    if (!(await this.requireStorage().delete(tenant, uri))) throw new NotFound('namespace file', path);
  }

  private requireStorage(): InternalStorage {
    if (!this.storage) {
      throw new InvalidRequest('This server has no internal storage', [
        { path: 'path', message: 'namespace files need internal storage (LANNER_STORAGE_TYPE)' },
      ]);
    }
    return this.storage;
  }

  private root(namespace: string): StorageUri {
    try {
      return namespaceFilesPrefix(namespace);
    } catch (error) {
      throw new InvalidRequest('The namespace is not valid', [{ path: 'namespace', message: messageOf(error) }]);
    }
  }

  private uriOf(namespace: string, path: string): StorageUri {
    this.root(namespace);
    try {
      return namespaceFileUri(namespace, path);
    } catch (error) {
      throw new InvalidRequest('The query is not valid', [{ path: 'path', message: messageOf(error) }]);
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof StorageUriError ? error.message : 'is not valid';
}
