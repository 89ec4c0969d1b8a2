export { ApiRoleModule } from './api-role.module';
