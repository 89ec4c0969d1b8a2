import { Controller, Delete, Get, Post, Put } from '@nestjs/common';
import { RequirePermission } from '../auth/route-access.decorator';
import { apiRoleRoutes, auditedRoutes, routesOf, writeRoutesWithoutAudit } from '../testing/api-routes';
import { Audit, NotAudited } from './audit.decorator';

// Every write through the API records one audit entry: a route that writes
// (any method but GET, or a `write` permission) declares its audit action, or
// says why it records none. The audit int-spec calls every audited route.

describe('audit declarations', () => {
  it('are on every write route the api role serves', () => {
    const routes = apiRoleRoutes();
    expect(writeRoutesWithoutAudit(routes)).toEqual([]);
    const actions = new Set(auditedRoutes(routes).map((route) => (route.audit as { action: string }).action));
    for (const action of [
      'flow.create',
      'flow.update',
      'flow.delete',
      'execution.create',
      'execution.kill',
      'execution.resume',
      'execution.restart',
      'dead-letter.replay',
      'worker-queue.save',
      'worker-group.save',
      'subscription.save',
      'api-token.create',
      'api-token.revoke',
      'user.create',
      'tenant.create',
      'trigger.update',
    ])
      expect(actions).toContain(action);
  });

  it('name the route, its controller method and the fix when a write route declares none', () => {
    @Controller('api/v1/:tenant/reports')
    class ReportsController {
      @RequirePermission('flow', 'read')
      @Get()
      list() {
        return [];
      }

      @RequirePermission('flow', 'write')
      @Put(':id')
      save() {
        return undefined;
      }

      @RequirePermission('flow', 'write')
      @Audit('report.delete', { id: ':id' })
      @Delete(':id')
      remove() {
        return undefined;
      }

      @RequirePermission('flow', 'read')
      @NotAudited('renders a preview without saving it')
      @Post('preview')
      preview() {
        return undefined;
      }

      // A GET needing a write permission writes, whatever its method.
      @RequirePermission('flow', 'write')
      @Get(':id/touch')
      touch() {
        return undefined;
      }
    }
    expect(writeRoutesWithoutAudit([...apiRoleRoutes(), ...routesOf([ReportsController])])).toEqual([
      "PUT /api/v1/:tenant/reports/:id (ReportsController.save): add @Audit('<resource>.<verb>', { id }) or @NotAudited(reason)",
      "GET /api/v1/:tenant/reports/:id/touch (ReportsController.touch): add @Audit('<resource>.<verb>', { id }) or @NotAudited(reason)",
    ]);
    expect(auditedRoutes(routesOf([ReportsController])).map((route) => route.audit)).toEqual([
      { action: 'report.delete', resourceType: 'report', id: [':id'], namespace: undefined },
    ]);
  });
});
