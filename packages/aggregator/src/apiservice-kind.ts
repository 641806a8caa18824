import { Type, kindSchema, type KindDefinition } from '@kapi/apimachinery';

/** The API group of APIServices. */
export const apiregistrationGroup = 'apiregistration.k8s.io';

const condition = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastTransitionTime: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

/** `apiregistration.k8s.io/v1` APIService: which server serves `<version>.<group>`. */
export const apiServiceKind: KindDefinition = {
  group: apiregistrationGroup,
  version: 'v1',
  kind: 'APIService',
  schema: kindSchema({
    group: apiregistrationGroup,
    version: 'v1',
    kind: 'APIService',
    spec: Type.Object({
      service: Type.Optional(
        Type.Object({
          namespace: Type.Optional(Type.String()),
          name: Type.Optional(Type.String()),
          port: Type.Optional(Type.Integer({ default: 443 })),
        }),
      ),
      group: Type.Optional(Type.String()),
      version: Type.Optional(Type.String()),
      insecureSkipTLSVerify: Type.Optional(Type.Boolean()),
      caBundle: Type.Optional(Type.String({ format: 'byte' })),
      groupPriorityMinimum: Type.Integer(),
      versionPriority: Type.Integer(),
    }),
    status: Type.Object({
      conditions: Type.Optional(
        Type.Array(condition, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
      ),
    }),
  }),
};

/** An APIService as stored and served (`apiregistration.k8s.io/v1`). */
export interface APIService {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; labels?: Record<string, string>; [key: string]: unknown };
  spec: {
    service?: { namespace?: string; name?: string; port?: number };
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    caBundle?: string;
    groupPriorityMinimum: number;
    versionPriority: number;
  };
  status?: {
    conditions?: Array<{
      type: string;
      status: string;
      lastTransitionTime?: string;
      reason?: string;
      message?: string;
    }>;
  };
}
