import { Inject, Injectable } from '@nestjs/common';
import type { Repositories, ServedTenantId } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';

/**
 * How long this api instance keeps serving a tenant it found enabled without asking
 * the tenants table again. A tenant disabled through this instance is refused at once;
 * through another instance, within this long.
 */
export const SERVED_TENANT_TTL_MS = 2_000;

/**
 * Which tenants the api serves (they exist and are enabled), as every tenant route
 * asks before its handler runs: an enabled tenant is remembered for
 * SERVED_TENANT_TTL_MS, so a busy tenant costs one read every two seconds instead of
 * one per request. A tenant not found or disabled is never remembered (one created a
 * moment ago is served at once).
 */
@Injectable()
export class ServedTenants {
  private readonly servedUntil = new Map<string, number>();

  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  async served(tenantId: string, nowMs = Date.now()): Promise<ServedTenantId | null> {
    const until = this.servedUntil.get(tenantId);
    if (until !== undefined && until > nowMs) return tenantId as ServedTenantId;
    const served = await this.repositories.tenants.served(tenantId);
    if (served === null) this.servedUntil.delete(tenantId);
    else this.servedUntil.set(tenantId, nowMs + SERVED_TENANT_TTL_MS);
    return served;
  }

  /** After this instance disabled or enabled the tenant: the next request reads it again. */
  forget(tenantId: string): void {
    this.servedUntil.delete(tenantId);
  }
}
