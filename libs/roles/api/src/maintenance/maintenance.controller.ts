import { Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audit } from '../audit/audit.decorator';
import type { AuthenticatedRequest } from '../auth/access.guard';
import { RequirePermission } from '../auth/route-access.decorator';
import { correlationIdOf } from '../http/correlation';
import { InstanceAdminAuth, InstanceProblems } from '../topology/topology-openapi';
import { JsonAnswer } from '../openapi/zod-openapi';
import { MaintenanceService, MaintenanceViewSchema } from './maintenance.service';

/**
 * Maintenance mode (RELIABILITY.md): while on, work in flight drains (running
 * tasks finish, their executions go on through the executor), workers get no
 * new job, and new executions are accepted and wait in CREATED until it ends.
 */
@ApiTags('instance')
@InstanceAdminAuth()
@Controller('api/v1/instance/maintenance')
export class MaintenanceController {
  constructor(private readonly maintenance: MaintenanceService) {}

  @RequirePermission('maintenance', 'read')
  @Get()
  @ApiOperation({ summary: 'Whether the cluster is in maintenance mode, since when and by whom' })
  @JsonAnswer(MaintenanceViewSchema)
  @InstanceProblems(503)
  current() {
    return this.maintenance.current();
  }

  @RequirePermission('maintenance', 'write')
  @Audit('maintenance.enter', { id: '$.scope' })
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enter maintenance mode (idempotent): running tasks finish, workers take no new job, new executions wait in CREATED',
  })
  @JsonAnswer(MaintenanceViewSchema)
  @InstanceProblems(503)
  enter(@Req() request: AuthenticatedRequest) {
    return this.maintenance.enter(request.principal?.tokenName ?? 'unknown', correlationIdOf(request));
  }

  @RequirePermission('maintenance', 'write')
  @Audit('maintenance.exit', { id: '$.scope' })
  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Leave maintenance mode (idempotent): waiting jobs are dispatched, waiting executions start' })
  @JsonAnswer(MaintenanceViewSchema)
  @InstanceProblems(503)
  exit(@Req() request: AuthenticatedRequest) {
    return this.maintenance.exit(correlationIdOf(request));
  }
}
