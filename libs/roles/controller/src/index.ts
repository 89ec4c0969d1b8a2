export { ControllerRoleModule } from './controller-role.module';
