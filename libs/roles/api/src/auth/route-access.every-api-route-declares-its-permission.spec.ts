import { Controller, Get, Post } from '@nestjs/common';
import { apiRoleRoutes, routesOf, routesWithoutDeclaredAccess } from '../testing/api-routes';
import { Public, RequirePermission } from './route-access.decorator';

// Every API route declares the permission it needs (or that it is public): an
// undeclared one is refused at run time by the access guard, and fails here first.

describe('route access declarations', () => {
  it('are on every route the api role serves', () => {
    const routes = apiRoleRoutes();
    expect(routes.length).toBeGreaterThan(30);
    expect(routesWithoutDeclaredAccess(routes)).toEqual([]);
  });

  it('name the route, its controller method and the fix when a route declares none', () => {
    @Controller('api/v1/:tenant/reports')
    class ReportsController {
      @RequirePermission('flow', 'read')
      @Get()
      list() {
        return [];
      }

      @Post(':id/share')
      share() {
        return undefined;
      }
    }
    expect(routesWithoutDeclaredAccess([...apiRoleRoutes(), ...routesOf([ReportsController])])).toEqual([
      'POST /api/v1/:tenant/reports/:id/share (ReportsController.share): add @RequirePermission(resource, action) or @Public()',
    ]);
  });

  it('take a controller-wide declaration, a handler one winning over it, and leave routes outside /api alone', () => {
    @RequirePermission('dashboard', 'read')
    @Controller('api/v1/:tenant/dashboards')
    class DashboardsController {
      @Get()
      list() {
        return [];
      }

      @RequirePermission('dashboard', 'write')
      @Post()
      create() {
        return undefined;
      }
    }
    @Controller('hooks')
    class OutsideController {
      @Get()
      ping() {
        return 'pong';
      }

      @Public()
      @Post()
      receive() {
        return undefined;
      }
    }
    const routes = routesOf([DashboardsController, OutsideController]);
    expect(routes.map((route) => [route.where, route.access?.permission ?? route.access?.public ?? null])).toEqual([
      ['DashboardsController.list', { resource: 'dashboard', action: 'read' }],
      ['DashboardsController.create', { resource: 'dashboard', action: 'write' }],
      ['OutsideController.ping', null],
      ['OutsideController.receive', true],
    ]);
    expect(routesWithoutDeclaredAccess(routes)).toEqual([]);
  });
});
