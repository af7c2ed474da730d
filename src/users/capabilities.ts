/** Roles and what they may do: one table, read by the console guard and by services that check a user's action. */
import type { UserRole } from '../db/types.ts';

/** A thing a console user may be allowed to do. */
export type Capability = 'read' | 'read_protected' | 'edit_content' | 'manage_settings' | 'manage_users';

/** Every role, most powerful first. */
export const ROLES: readonly UserRole[] = ['owner', 'admin', 'editor', 'viewer'];

const BY_ROLE: Record<UserRole, readonly Capability[]> = {
  owner: ['read', 'read_protected', 'edit_content', 'manage_settings', 'manage_users'],
  admin: ['read', 'edit_content', 'manage_settings'],
  editor: ['read', 'edit_content'],
  viewer: ['read'],
};

/** What a user needs to know to be checked. */
export interface CapabilityHolder {
  role: UserRole;
  canReadProtected: boolean;
}

/** True when the user has the capability. Reading protected content is the owner's, or granted by a flag. */
export function can(user: CapabilityHolder, capability: Capability): boolean {
  if (capability === 'read_protected')
    return user.role === 'owner' || (user.role !== 'viewer' && user.canReadProtected);
  return BY_ROLE[user.role].includes(capability);
}

/** True for a known role name. */
export function isRole(value: string): value is UserRole {
  return (ROLES as readonly string[]).includes(value);
}
