import { StatusError, Type, kindSchema, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import type { PolicyRule, UserInfo } from '@kapi/filters';
import type { ResourceDefinition } from '@kapi/server';
import {
  accessReviewDescriptions,
  reviewKindDescription,
  rulesReviewDescriptions,
} from './authorization-descriptions.js';
import {
  answerReview,
  subjectAccessReviewKinds,
  subjectAccessReviewResources,
  validateReviewAttributes,
  type AccessReviewSpec,
} from './subject-access-reviews.js';

const group = 'authorization.k8s.io';
const version = 'v1';
const strings = () => Type.Optional(Type.Array(Type.String()));

/** FieldSelectorAttributes / LabelSelectorAttributes: a raw selector or its parsed requirements. */
function selectorAttributes() {
  const requirement = Type.Object({ key: Type.String(), operator: Type.String(), values: strings() });
  return Type.Object({ rawSelector: Type.Optional(Type.String()), requirements: Type.Optional(Type.Array(requirement)) });
}

const resourceAttributes = Type.Object({
  namespace: Type.Optional(Type.String()),
  verb: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  resource: Type.Optional(Type.String()),
  subresource: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  fieldSelector: Type.Optional(selectorAttributes()),
  labelSelector: Type.Optional(selectorAttributes()),
});
const nonResourceAttributes = Type.Object({
  path: Type.Optional(Type.String()),
  verb: Type.Optional(Type.String()),
});
const accessStatus = Type.Object({
  allowed: Type.Boolean(),
  denied: Type.Optional(Type.Boolean()),
  reason: Type.Optional(Type.String()),
  evaluationError: Type.Optional(Type.String()),
});

export const authorizationKinds: KindDefinition[] = [
  {
    group,
    version,
    kind: 'SelfSubjectAccessReview',
    schema: withFieldDescriptions(
      kindSchema({
        group,
        version,
        kind: 'SelfSubjectAccessReview',
        description: reviewKindDescription('SelfSubjectAccessReview'),
        spec: Type.Object({
          resourceAttributes: Type.Optional(resourceAttributes),
          nonResourceAttributes: Type.Optional(nonResourceAttributes),
        }),
        status: accessStatus,
      }),
      accessReviewDescriptions('SelfSubjectAccessReview'),
    ),
  },
  {
    group,
    version,
    kind: 'SelfSubjectRulesReview',
    schema: withFieldDescriptions(
      kindSchema({
        group,
        version,
        kind: 'SelfSubjectRulesReview',
        description: reviewKindDescription('SelfSubjectRulesReview'),
        spec: Type.Object({ namespace: Type.Optional(Type.String()) }),
        status: Type.Object({
          resourceRules: Type.Array(
            Type.Object({
              verbs: Type.Array(Type.String()),
              apiGroups: strings(),
              resources: strings(),
              resourceNames: strings(),
            }),
          ),
          nonResourceRules: Type.Array(
            Type.Object({ verbs: Type.Array(Type.String()), nonResourceURLs: strings() }),
          ),
          incomplete: Type.Boolean(),
          evaluationError: Type.Optional(Type.String()),
        }),
      }),
      rulesReviewDescriptions,
    ),
  },
  ...subjectAccessReviewKinds({
    resource: resourceAttributes,
    nonResource: nonResourceAttributes,
    status: accessStatus,
  }),
];

/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview and
 * LocalSubjectAccessReview (virtual: answered, not stored).
 */
export function authorizationResources(options: {
  rulesFor?: (user: UserInfo, namespace: string) => Promise<{ rules: PolicyRule[]; errors: string[] }>;
}): ResourceDefinition[] {
  return [
    {
      group,
      resource: 'selfsubjectaccessreviews',
      kind: 'SelfSubjectAccessReview',
      namespaced: false,
      versions: [version],
      virtual: {
        create(object: KubeObject, scope) {
          const spec = (object.spec ?? {}) as AccessReviewSpec;
          const errors = validateReviewAttributes(spec);
          if (errors.length > 0)
            throw StatusError.invalid({ group, kind: 'SelfSubjectAccessReview' }, '', errors);
          return answerReview(object, spec, scope.user, scope);
        },
      },
    },
    {
      group,
      resource: 'selfsubjectrulesreviews',
      kind: 'SelfSubjectRulesReview',
      namespaced: false,
      versions: [version],
      virtual: {
        async create(object: KubeObject, scope) {
          const namespace = ((object.spec ?? {}) as { namespace?: string }).namespace ?? '';
          // As upstream's REST: the rules of a namespace are asked for, never of the whole cluster.
          if (namespace === '') throw StatusError.badRequest('no namespace on request');
          const privileged = scope.user?.groups.includes('system:masters') ?? false;
          const found =
            privileged || !scope.user || !options.rulesFor
              ? {
                  rules: privileged
                    ? [
                        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
                        { verbs: ['*'], nonResourceURLs: ['*'] },
                      ]
                    : [],
                  errors: [],
                }
              : await options.rulesFor(scope.user, namespace);
          const resourceRules = found.rules.filter((rule) => !rule.nonResourceURLs?.length);
          const nonResourceRules = found.rules
            .filter((rule) => rule.nonResourceURLs?.length)
            .map((rule) => ({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs }));
          return {
            ...object,
            status: {
              resourceRules,
              nonResourceRules,
              incomplete: found.errors.length > 0,
              ...(found.errors.length ? { evaluationError: found.errors.join('; ') } : {}),
            },
          };
        },
      },
    },
    ...subjectAccessReviewResources(),
  ];
}
