import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InstanceAdminGuard } from './instance-admin.guard';
import { InstanceAdminAuth, InstanceProblems, listOf, SERVICE_SCHEMA } from './topology-openapi';
import { serviceInstanceView } from './topology-view';
import { WorkerFleetService } from './worker-fleet.service';

@ApiTags('instance')
@InstanceAdminAuth()
@UseGuards(InstanceAdminGuard)
@Controller('api/v1/instance/services')
export class InstanceServicesController {
  constructor(private readonly fleet: WorkerFleetService) {}

  @Get()
  @ApiOperation({ summary: 'The service instances of every role, with their state and last heartbeat' })
  @ApiOkResponse({ schema: listOf(SERVICE_SCHEMA) })
  @InstanceProblems()
  async list() {
    return (await this.fleet.services()).map(serviceInstanceView);
  }
}
