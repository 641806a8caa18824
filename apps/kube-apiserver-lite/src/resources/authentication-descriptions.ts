import { type FieldDescriptions } from '@kapi/apimachinery';

// The descriptions upstream publishes for authentication.k8s.io/v1 TokenReview and SelfSubjectReview
// (kubernetes/kubernetes api/openapi-spec/v3/apis__authentication.k8s.io__v1_openapi.json), verbatim;
// field paths as in field-descriptions.ts.

/** The description of authentication.k8s.io/v1 TokenReview. */
export const tokenReviewDescription =
  'TokenReview attempts to authenticate a token to a known user. Note: TokenReview requests may be cached by the webhook token authenticator plugin in the kube-apiserver.';

/** The description of authentication.k8s.io/v1 SelfSubjectReview. */
export const selfSubjectReviewDescription =
  'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request. When using impersonation, users will receive the user info of the user being impersonated.  If impersonation or request header authentication is used, any extra keys will have their case ignored and returned as lowercase.';

/** The fields of upstream's UserInfo, under `path`. */
const userInfo = (path: string, description: string): FieldDescriptions => ({
  [path]: description,
  [`${path}.extra`]: 'extra is any additional information provided by the authenticator.',
  [`${path}.groups`]: 'groups is the names of groups this user is a part of.',
  [`${path}.uid`]:
    'uid is a unique value that identifies this user across time. If this user is deleted and another user by the same name is added, they will have different UIDs.',
  [`${path}.username`]: 'username is the name that uniquely identifies this user among all active users.',
});

/** The fields of authentication.k8s.io/v1 TokenReview. */
export const tokenReviewDescriptions: FieldDescriptions = {
  spec: 'spec holds information about the request being evaluated',
  'spec.audiences':
    'audiences is a list of the identifiers that the resource server presented with the token identifies as. Audience-aware token authenticators will verify that the token was intended for at least one of the audiences in this list. If no audiences are provided, the audience will default to the audience of the Kubernetes apiserver.',
  'spec.token': 'token is the opaque bearer token.',
  status: 'status is filled in by the server and indicates whether the request can be authenticated.',
  'status.audiences':
    'audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token. An identifier is any identifier in the intersection of the TokenReviewSpec audiences and the token\'s audiences. A client of the TokenReview API that sets the spec.audiences field should validate that a compatible audience identifier is returned in the status.audiences field to ensure that the TokenReview server is audience aware. If a TokenReview returns an empty status.audience field where status.authenticated is "true", the token is valid against the audience of the Kubernetes API server.',
  'status.authenticated': 'authenticated indicates that the token was associated with a known user.',
  'status.error': "error indicates that the token couldn't be checked",
  ...userInfo('status.user', 'user is the UserInfo associated with the provided token.'),
};

/** The fields of authentication.k8s.io/v1 SelfSubjectReview. */
export const selfSubjectReviewDescriptions: FieldDescriptions = {
  status: 'status is filled in by the server with the user attributes.',
  ...userInfo(
    'status.userInfo',
    'userInfo is a set of attributes belonging to the user making this request.',
  ),
};
