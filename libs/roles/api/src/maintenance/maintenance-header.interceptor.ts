import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { type Observable, tap } from 'rxjs';
import type { HttpResponse } from '../http/http-types';
import { MAINTENANCE_HEADER, MaintenanceService } from './maintenance.service';

/**
 * While the cluster is in maintenance mode every API answer says so with
 * `Lanner-Maintenance: true` (set before the handler runs, so problem answers
 * carry it too, and looked at again after it, so the answer to entering or
 * leaving maintenance already tells the new state): a client that starts an
 * execution learns that it waits.
 */
@Injectable()
export class MaintenanceHeaderInterceptor implements NestInterceptor {
  constructor(private readonly maintenance: MaintenanceService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const response = context.switchToHttp().getResponse<HttpResponse>();
    this.mark(response);
    return next.handle().pipe(tap(() => this.mark(response)));
  }

  private mark(response: HttpResponse): void {
    if (response.headersSent) return;
    if (this.maintenance.inMaintenance) response.setHeader(MAINTENANCE_HEADER, 'true');
    else response.removeHeader(MAINTENANCE_HEADER);
  }
}
