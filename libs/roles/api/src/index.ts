export { ApiRoleModule } from './api-role.module';
export type { ApiRoleOptions } from './api-role.options';
