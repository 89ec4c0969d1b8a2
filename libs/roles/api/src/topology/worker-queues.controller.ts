import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { HttpResponse } from '../http/http-types';
import { JsonAnswer, JsonBody } from '../openapi/zod-openapi';
import { InstanceAdminAuth, InstanceProblems, WorkerQueueBodySchema } from './topology-openapi';
import { workerQueueView, WorkerQueueViewSchema } from './topology-view';
import { TopologyService } from './topology.service';
import { RequirePermission } from '../auth/route-access.decorator';
import { Audit } from '../audit/audit.decorator';

@ApiTags('worker topology')
@InstanceAdminAuth()
@Controller('api/v1/instance/worker-queues')
export class WorkerQueuesController {
  constructor(private readonly topology: TopologyService) {}

  @RequirePermission('worker-topology', 'read')
  @Get()
  @ApiOperation({ summary: 'Every worker queue, including the reserved `default` and `system`' })
  @JsonAnswer(z.array(WorkerQueueViewSchema))
  @InstanceProblems()
  async list() {
    return (await this.topology.listQueues()).map(workerQueueView);
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('worker-queue.save', { id: ':id' })
  @Put(':id')
  @ApiOperation({ summary: 'Create or replace a worker queue (idempotent); a new queue gets its job topic' })
  @JsonBody(WorkerQueueBodySchema)
  @JsonAnswer(WorkerQueueViewSchema, { status: 201, description: 'Created' })
  @JsonAnswer(WorkerQueueViewSchema, { description: 'Updated, or already as asked (then nothing changed)' })
  @InstanceProblems(400, 422, 503)
  async put(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) response: HttpResponse) {
    const { record, created } = await this.topology.putQueue(id, body);
    response.statusCode = created ? 201 : 200;
    return workerQueueView(record);
  }

  @RequirePermission('worker-topology', 'read')
  @Get(':id')
  @ApiOperation({ summary: 'One worker queue' })
  @JsonAnswer(WorkerQueueViewSchema)
  @InstanceProblems(404)
  async get(@Param('id') id: string) {
    return workerQueueView(await this.topology.getQueue(id));
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('worker-queue.delete', { id: ':id' })
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a worker queue no group subscribes to (its topic and the jobs on it stay)' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @InstanceProblems(404, 409)
  async delete(@Param('id') id: string): Promise<void> {
    await this.topology.deleteQueue(id);
  }
}
