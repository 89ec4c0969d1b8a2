import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { correlationIdOf } from '../http/correlation';
import type { HttpRequest, HttpResponse } from '../http/http-types';
import { RegistrationTokenBodySchema, RegistrationTokensService } from './registration-tokens.service';
import { JsonAnswer, JsonBody } from '../openapi/zod-openapi';
import { InstanceAdminAuth, InstanceProblems, SubscriptionBodySchema, WorkerGroupBodySchema } from './topology-openapi';
import {
  ConnectedWorkerViewSchema,
  connectedWorkerView,
  GroupCapacityViewSchema,
  MintedRegistrationTokenViewSchema,
  registrationTokenView,
  RegistrationTokenViewSchema,
  subscriptionView,
  SubscriptionViewSchema,
  workerCapacityView,
  workerGroupView,
  WorkerGroupViewSchema,
} from './topology-view';
import { TopologyService } from './topology.service';
import { WorkerFleetService } from './worker-fleet.service';
import { RequirePermission } from '../auth/route-access.decorator';
import { Audit } from '../audit/audit.decorator';

@ApiTags('worker topology')
@InstanceAdminAuth()
@Controller('api/v1/instance/worker-groups')
export class WorkerGroupsController {
  constructor(
    private readonly topology: TopologyService,
    private readonly tokens: RegistrationTokensService,
    private readonly fleet: WorkerFleetService,
  ) {}

  @RequirePermission('worker-topology', 'read')
  @Get()
  @ApiOperation({ summary: 'Every worker group with its subscriptions' })
  @JsonAnswer(z.array(WorkerGroupViewSchema))
  @InstanceProblems()
  async list() {
    return (await this.topology.listGroups()).map(workerGroupView);
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('worker-group.save', { id: ':id' })
  @Put(':id')
  @ApiOperation({
    summary: 'Create or replace a worker group (idempotent); a subscription change reaches controllers within seconds',
  })
  @JsonBody(WorkerGroupBodySchema)
  @JsonAnswer(WorkerGroupViewSchema, { status: 201, description: 'Created' })
  @JsonAnswer(WorkerGroupViewSchema, { description: 'Updated, or already as asked (then nothing changed)' })
  @InstanceProblems(400, 404, 422, 503)
  async put(
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: HttpRequest,
    @Res({ passthrough: true }) response: HttpResponse,
  ) {
    const { record, created } = await this.topology.putGroup(id, body, correlationIdOf(request));
    response.statusCode = created ? 201 : 200;
    return workerGroupView(record);
  }

  @RequirePermission('worker-topology', 'read')
  @Get(':id')
  @ApiOperation({ summary: 'One worker group with its subscriptions' })
  @JsonAnswer(WorkerGroupViewSchema)
  @InstanceProblems(404)
  async get(@Param('id') id: string) {
    return workerGroupView(await this.topology.getGroup(id));
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('worker-group.delete', { id: ':id' })
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a worker group with its subscriptions and tokens (its workers get no new work); not `default`',
  })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @InstanceProblems(404, 503)
  async delete(@Param('id') id: string, @Req() request: HttpRequest): Promise<void> {
    await this.topology.deleteGroup(id, correlationIdOf(request));
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('subscription.save', { id: [':id', ':queueId'] })
  @Put(':id/subscriptions/:queueId')
  @ApiOperation({ summary: 'Subscribe the group to a worker queue, or change the subscription; live within seconds' })
  @JsonBody(SubscriptionBodySchema)
  @JsonAnswer(SubscriptionViewSchema)
  @InstanceProblems(400, 404, 422, 503)
  async putSubscription(
    @Param('id') id: string,
    @Param('queueId') queueId: string,
    @Body() body: unknown,
    @Req() request: HttpRequest,
  ) {
    return subscriptionView(await this.topology.putSubscription(id, queueId, body, correlationIdOf(request)));
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('subscription.delete', { id: [':id', ':queueId'] })
  @Delete(':id/subscriptions/:queueId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a subscription (the queue stays); `default` keeps its `default` subscription' })
  @ApiResponse({ status: 204, description: 'Removed' })
  @InstanceProblems(404, 503)
  async deleteSubscription(
    @Param('id') id: string,
    @Param('queueId') queueId: string,
    @Req() request: HttpRequest,
  ): Promise<void> {
    await this.topology.deleteSubscription(id, queueId, correlationIdOf(request));
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('registration-token.create', { id: '$.id' })
  @Post(':id/tokens')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a registration token for the group: its value is in this answer only' })
  @JsonBody(RegistrationTokenBodySchema)
  @JsonAnswer(MintedRegistrationTokenViewSchema, { status: 201, description: 'The token with its value' })
  @InstanceProblems(400, 404, 409, 422)
  async mintToken(@Param('id') id: string, @Body() body: unknown): Promise<z.output<typeof MintedRegistrationTokenViewSchema>> {
    const { record, token } = await this.tokens.mint(id, body);
    return { id: record.id, name: record.name, token, createdAt: record.createdAt.toISOString() };
  }

  @RequirePermission('worker-topology', 'read')
  @Get(':id/tokens')
  @ApiOperation({ summary: "The group's registration tokens, without their values" })
  @JsonAnswer(z.array(RegistrationTokenViewSchema))
  @InstanceProblems(404)
  async listTokens(@Param('id') id: string) {
    return (await this.tokens.list(id)).map(registrationTokenView);
  }

  @RequirePermission('worker-topology', 'write')
  @Audit('registration-token.revoke', { id: ':tokenId' })
  @Delete(':id/tokens/:tokenId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a registration token at once: controllers stop sending work to its workers' })
  @ApiResponse({ status: 204, description: 'Revoked (revoking again changes nothing)' })
  @InstanceProblems(404, 503)
  async revokeToken(@Param('id') id: string, @Param('tokenId') tokenId: string, @Req() request: HttpRequest): Promise<void> {
    await this.tokens.revoke(id, tokenId, correlationIdOf(request));
  }

  @RequirePermission('worker-topology', 'read')
  @Get(':id/workers')
  @ApiOperation({ summary: "The group's connected workers (rows their controllers refreshed within the last 15 s)" })
  @JsonAnswer(z.array(ConnectedWorkerViewSchema))
  @InstanceProblems(404)
  async workers(@Param('id') id: string) {
    return (await this.fleet.connectedWorkers(id)).map(connectedWorkerView);
  }

  @RequirePermission('worker-topology', 'read')
  @Get(':id/capacity')
  @ApiOperation({
    summary: 'The live capacity ledger of each connected worker, per subscription',
    description:
      "From the snapshot each controller writes with its workers' heartbeats: slots, reserved, used, borrowed, lent and waiting. " +
      '`waiting` is reported when the snapshot carries it, otherwise 0.',
  })
  @JsonAnswer(GroupCapacityViewSchema)
  @InstanceProblems(404)
  async capacity(@Param('id') id: string): Promise<z.output<typeof GroupCapacityViewSchema>> {
    return { workerGroupId: id, workers: (await this.fleet.connectedWorkers(id)).map(workerCapacityView) };
  }
}
