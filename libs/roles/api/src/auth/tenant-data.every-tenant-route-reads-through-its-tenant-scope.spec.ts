import { Controller, Get, Inject, Injectable, Param } from '@nestjs/common';
import { REPOSITORIES } from '@lanner/runtime';
import { apiRoleControllers, tenantControllersOutsideTheirScope } from '../testing/api-routes';
import { RequirePermission } from './route-access.decorator';

// A tenant route reads and writes its tenant's data through the scope the access guard made for
// the served tenant (@TenantData()): its methods take no tenant id, so no handler can forget the
// filter or pass another tenant's. This fails on a tenant controller that could do otherwise.

describe('tenant routes', () => {
  it('take their tenant data from the request scope, never the repositories or the raw tenant parameter', () => {
    const controllers = apiRoleControllers();
    expect(controllers.filter((type) => String(Reflect.getMetadata('path', type)).includes(':tenant')).length).toBeGreaterThan(6);
    expect(tenantControllersOutsideTheirScope(controllers, REPOSITORIES)).toEqual([]);
  });

  it('name the handler and the injection chain of one that could reach another tenant', () => {
    @Injectable()
    class ReportsService {
      constructor(@Inject(REPOSITORIES) readonly repositories: unknown) {}
    }
    @Controller('api/v1/:tenant/reports')
    class ReportsController {
      constructor(readonly reports: ReportsService) {}

      @RequirePermission('flow', 'read')
      @Get(':id')
      get(@Param('tenant') tenant: string, @Param('id') id: string) {
        return { tenant, id };
      }
    }
    @Controller('api/v1/instance/reports')
    class InstanceReportsController {
      constructor(@Inject(REPOSITORIES) readonly repositories: unknown) {}
    }
    expect(tenantControllersOutsideTheirScope([ReportsController, InstanceReportsController], REPOSITORIES)).toEqual([
      "ReportsController.get takes @Param('tenant'): take @TenantData() instead",
      'ReportsController -> ReportsService injects the repositories: read through @TenantData()',
    ]);
  });
});
