import {
  alwaysAllowAuthorizer,
  alwaysDenyAuthorizer,
  privilegedGroupsAuthorizer,
  unionAuthorizer,
  type Authorizer,
} from './authorizer.js';
import { RBACAuthorizer } from './rbac-authorizer.js';
import type { RBACRuleSource } from './rbac-types.js';
import { systemPrivilegedGroup } from './with-authentication.js';

/** `--authorization-mode` values this package implements. */
export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC';

/** Options of {@link authorizerForModes}. */
export interface AuthorizationModesOptions {
  /** In order, as `--authorization-mode=RBAC,AlwaysDeny`. */
  modes: readonly AuthorizationMode[];
  /** Required for mode RBAC. */
  rbacRuleSource?: RBACRuleSource;
}

/**
 * Builds the authorizer kube-apiserver builds for `--authorization-mode`: `system:masters` first
 * (always allowed), then each mode in order, combined with {@link unionAuthorizer}.
 */
export function authorizerForModes(options: AuthorizationModesOptions): Authorizer {
  if (options.modes.length === 0) throw new Error('at least one authorization mode must be passed');
  const seen = new Set<string>();
  const authorizers: Authorizer[] = [privilegedGroupsAuthorizer([systemPrivilegedGroup])];
  for (const mode of options.modes) {
    if (seen.has(mode)) throw new Error(`authorization-mode "${mode}" has already been specified`);
    seen.add(mode);
    switch (mode) {
      case 'AlwaysAllow':
        authorizers.push(alwaysAllowAuthorizer);
        break;
      case 'AlwaysDeny':
        authorizers.push(alwaysDenyAuthorizer);
        break;
      case 'RBAC':
        if (!options.rbacRuleSource) throw new Error('authorization mode RBAC needs an rbacRuleSource');
        authorizers.push(new RBACAuthorizer(options.rbacRuleSource, { privilegedGroups: [] }));
        break;
      default:
        throw new Error(`unknown authorization mode "${String(mode)}" specified`);
    }
  }
  return unionAuthorizer(...authorizers);
}
