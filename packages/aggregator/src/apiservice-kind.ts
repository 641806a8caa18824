import { Type, kindSchema, type KindDefinition } from '@kapi/apimachinery';

/** The API group of APIServices. */
export const apiregistrationGroup = 'apiregistration.k8s.io';

// Field descriptions are upstream's (kubernetes/kubernetes api/openapi-spec/v3/
// apis__apiregistration.k8s.io__v1_openapi.json), verbatim, for `kubectl explain`.

const condition = Type.Object(
  {
    type: Type.String({ description: 'Type is the type of the condition.' }),
    status: Type.String({
      description: 'Status is the status of the condition. Can be True, False, Unknown.',
    }),
    lastTransitionTime: Type.Optional(
      Type.String({ description: 'Last time the condition transitioned from one status to another.' }),
    ),
    reason: Type.Optional(
      Type.String({ description: "Unique, one-word, CamelCase reason for the condition's last transition." }),
    ),
    message: Type.Optional(
      Type.String({ description: 'Human-readable message indicating details about last transition.' }),
    ),
  },
  { description: 'APIServiceCondition describes the state of an APIService at a particular point' },
);

/** `apiregistration.k8s.io/v1` APIService: which server serves `<version>.<group>`. */
export const apiServiceKind: KindDefinition = {
  group: apiregistrationGroup,
  version: 'v1',
  kind: 'APIService',
  schema: kindSchema({
    group: apiregistrationGroup,
    version: 'v1',
    kind: 'APIService',
    description:
      'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
    spec: Type.Object(
      {
        service: Type.Optional(
          Type.Object(
            {
              namespace: Type.Optional(
                Type.String({ description: 'Namespace is the namespace of the service' }),
              ),
              name: Type.Optional(Type.String({ description: 'Name is the name of the service' })),
              port: Type.Optional(
                Type.Integer({
                  default: 443,
                  description:
                    'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).',
                }),
              ),
            },
            {
              description:
                'Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server. The call will simply delegate to the normal handler chain to be fulfilled.',
            },
          ),
        ),
        group: Type.Optional(Type.String({ description: 'Group is the API group name this server hosts' })),
        version: Type.Optional(
          Type.String({ description: 'Version is the API version this server hosts.  For example, "v1"' }),
        ),
        insecureSkipTLSVerify: Type.Optional(
          Type.Boolean({
            description:
              'InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.',
          }),
        ),
        caBundle: Type.Optional(
          Type.String({
            format: 'byte',
            description:
              "CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.",
          }),
        ),
        groupPriorityMinimum: Type.Integer({
          description:
            "GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones. Note that other versions of this group might specify even higher GroupPriorityMinimum values such that the whole group gets a higher priority. The primary sort is based on GroupPriorityMinimum, ordered highest number to lowest (20 before 10). The secondary sort is based on the alphabetical comparison of the name of the object.  (v1.bar before v1.foo) We'd recommend something like: *.k8s.io (except extensions) at 18000 and PaaSes (OpenShift, Deis) are recommended to be in the 2000s",
        }),
        versionPriority: Type.Integer({
          description:
            'VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero. The primary sort is based on VersionPriority, ordered highest to lowest (20 before 10). Since it\'s inside of a group, the number can be small, probably in the 10s. In case of equal version priorities, the version string will be used to compute the order inside a group. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then optionally the string "alpha" or "beta" and another number (the minor version). These are sorted first by GA > beta > alpha (where GA is a version with no suffix such as beta or alpha), and then by comparing major version, then minor version. An example sorted list of versions: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.',
        }),
      },
      { description: 'Spec contains information for locating and communicating with a server' },
    ),
    status: Type.Object(
      {
        conditions: Type.Optional(
          Type.Array(condition, {
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['type'],
            description: 'Current service state of apiService.',
          }),
        ),
      },
      { description: 'Status contains derived information about an API server' },
    ),
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
