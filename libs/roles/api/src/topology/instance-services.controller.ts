import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { JsonAnswer } from '../openapi/zod-openapi';
import { InstanceAdminAuth, InstanceProblems } from './topology-openapi';
import { serviceInstanceView, ServiceInstanceViewSchema } from './topology-view';
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
  @JsonAnswer(z.array(ServiceInstanceViewSchema))
  @InstanceProblems()
  async list() {
    return (await this.fleet.services()).map(serviceInstanceView);
  }
}
