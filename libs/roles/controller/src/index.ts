export { ControllerRoleModule } from './controller-role.module';
export type { ControllerSettings } from './lib/controller-settings';
