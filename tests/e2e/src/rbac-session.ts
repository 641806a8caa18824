import type { RestClient } from '@kapi/client';
import { httpsCall } from './https-call.js';

/** Test helpers of authorization.test.ts: requests as token users, RBAC grants by the admin. */

export const rbacGroup = 'rbac.authorization.k8s.io';
export const rbacPath = `/apis/${rbacGroup}/v1`;

/** A parsed answer: status code, JSON body (if any) and text. */
export interface Answer {
  code: number;
  body: { message?: string; reason?: string; items?: Array<{ metadata: { name: string } }> } & Record<string, unknown>;
  text: string;
}

/** Where the helpers send: read at call time (the server starts in a beforeAll). */
export type Target = () => { url: string; admin: RestClient };

/** Repeats `attempt` until it gives `code` (RBAC changes reach the authorizer through a watch). */
export async function eventually(code: number, attempt: () => Promise<Answer>): Promise<Answer> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await attempt();
    if (answer.code === code || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A PolicyRule (with resourceNames when given). */
export const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]) => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});

/** A ClusterRoleBinding `name` of the ClusterRole `role` to one user or group, created by `admin`. */
export async function bindClusterRole(
  admin: RestClient,
  name: string,
  role: string,
  subject: { kind: 'User' | 'Group'; name: string },
): Promise<void> {
  await admin.request({
    method: 'POST',
    path: `${rbacPath}/clusterrolebindings`,
    body: {
      apiVersion: `${rbacGroup}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: rbacGroup, ...subject }],
    },
  });
}

/** Requests and grants against the target server. */
export function rbacSession(target: Target) {
  /** One HTTPS request as `user` (its token), or without credentials, with extra headers. */
  function call(
    method: string,
    path: string,
    options: { user?: string; token?: string; body?: unknown; contentType?: string; headers?: Record<string, string | string[]> } = {},
  ): Promise<Answer> {
    const { user, token = user ? `${user}-token` : undefined, ...rest } = options;
    return httpsCall(target().url, method, path, { ...rest, ca: target().admin.config.ca, ...(token ? { token } : {}) }) as Promise<Answer>;
  }

  /** Creates (or replaces the rules of) a Role in default bound to `user` (as the admin). */
  async function grant(name: string, user: string, rules: unknown[]): Promise<void> {
    const role = { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name, namespace: 'default' }, rules };
    const { admin } = target();
    await admin.request({ method: 'PUT', path: `${rbacPath}/namespaces/default/roles/${name}`, body: role }).catch(() =>
      admin.request({ method: 'POST', path: `${rbacPath}/namespaces/default/roles`, body: role }),
    );
    await admin
      .request({
        method: 'POST',
        path: `${rbacPath}/namespaces/default/rolebindings`,
        body: {
          apiVersion: `${rbacGroup}/v1`,
          kind: 'RoleBinding',
          metadata: { name, namespace: 'default' },
          roleRef: { apiGroup: rbacGroup, kind: 'Role', name },
          subjects: [{ apiGroup: rbacGroup, kind: 'User', name: user }],
        },
      })
      .catch(() => undefined);
  }

  /** A ClusterRole bound to `user` cluster-wide (impersonating users and groups is cluster-scoped). */
  async function grantCluster(name: string, user: string, rules: unknown[]): Promise<void> {
    await target().admin.request({ method: 'POST', path: `${rbacPath}/clusterroles`, body: { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name }, rules } });
    await bindClusterRole(target().admin, name, name, { kind: 'User', name: user });
  }

  /** Whether the admin can read the object at `path`. */
  async function exists(path: string): Promise<boolean> {
    return target().admin.request({ method: 'GET', path }).then(
      () => true,
      () => false,
    );
  }

  return { call, grant, grantCluster, exists };
}
