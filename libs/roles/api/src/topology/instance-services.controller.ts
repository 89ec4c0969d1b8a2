import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InstanceAdminAuth, InstanceProblems, listOf, SERVICE_SCHEMA } from './topology-openapi';
import { serviceInstanceView } from './topology-view';
import { WorkerFleetService } from './worker-fleet.service';
import { RequirePermission } from '../auth/route-access.decorator';

@ApiTags('instance')
@InstanceAdminAuth()
@Controller('api/v1/instance/services')
export class InstanceServicesController {
  constructor(private readonly fleet: WorkerFleetService) {}

  @RequirePermission('service-instance', 'read')
  @Get()
  @ApiOperation({ summary: 'The service instances of every role, with their state and last heartbeat' })
  @ApiOkResponse({ schema: listOf(SERVICE_SCHEMA) })
  @InstanceProblems()
  async list() {
    return (await this.fleet.services()).map(serviceInstanceView);
  }
}
