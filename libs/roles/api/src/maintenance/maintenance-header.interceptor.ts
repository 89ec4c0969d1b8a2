import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { HttpResponse } from '../http/http-types';
import { MAINTENANCE_HEADER, MaintenanceService } from './maintenance.service';

/**
 * While the cluster is in maintenance mode every API answer says so with
 * `Lanner-Maintenance: true` (set before the handler runs, so problem answers
 * carry it too): a client that starts an execution learns that it waits.
 */
@Injectable()
export class MaintenanceHeaderInterceptor implements NestInterceptor {
  constructor(private readonly maintenance: MaintenanceService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http' && this.maintenance.inMaintenance) {
      const response = context.switchToHttp().getResponse<HttpResponse>();
      if (!response.headersSent) response.setHeader(MAINTENANCE_HEADER, 'true');
    }
    return next.handle();
  }
}
