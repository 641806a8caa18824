import type { GroupVersionKind } from '@kapi/apimachinery';
import type { ExternalSubresource, ResourceDefinition } from '../resource-definition.js';
import { commonDescriptions, metaNames, type JSONSchema } from './meta-definitions.js';
import { kindDefinition, metadataProperty, refFor, type OpenAPIFlavour } from './openapi-schemas.js';

/**
 * The subresources of a definition (at one version) served by another handler whose kind differs from the
 * resource's, e.g. `serviceaccounts/token` (authentication.k8s.io/v1 TokenRequest) or upstream's
 * `pods/eviction` (policy/v1 Eviction): each gets its own path and its kind's definition in the documents.
 */
export function externalSubresources(definition: ResourceDefinition): ExternalSubresource[] {
  return (definition.subresources?.servedElsewhere ?? []).filter(
    ({ kind }) => kind.group !== definition.group || kind.kind !== definition.kind,
  );
}

const authentication = 'io.k8s.api.authentication.v1';
const tokenRequestName = `${authentication}.TokenRequest`;
const tokenRequestGroupVersionKind = { group: 'authentication.k8s.io', kind: 'TokenRequest', version: 'v1' };

/** authentication.k8s.io/v1 TokenRequest and the types it references, as upstream publishes them. */
function tokenRequestDefinitions(flavour: OpenAPIFlavour): Record<string, JSONSchema> {
  const $ref = refFor(flavour);
  const ref = (name: string, description: string): JSONSchema => (flavour === 'v3' ? { allOf: [{ $ref: $ref(name) }], description } : { $ref: $ref(name), description });
  return {
    [`${authentication}.BoundObjectReference`]: {
      description: 'BoundObjectReference is a reference to an object that a token is bound to.',
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: 'API version of the referent.' },
        kind: { type: 'string', description: "Kind of the referent. Valid kinds are 'Pod' and 'Secret'." },
        name: { type: 'string', description: 'Name of the referent.' },
        uid: { type: 'string', description: 'UID of the referent.' },
      },
    },
    [tokenRequestName]: {
      description: 'TokenRequest requests a token for a given service account.',
      type: 'object',
      required: ['spec'],
      properties: {
        apiVersion: { type: 'string', description: commonDescriptions.apiVersion },
        kind: { type: 'string', description: commonDescriptions.kind },
        metadata: metadataProperty(flavour, metaNames.objectMeta, commonDescriptions.metadata),
        spec: metadataProperty(flavour, `${authentication}.TokenRequestSpec`, 'Spec holds information about the request being evaluated'),
        status: metadataProperty(flavour, `${authentication}.TokenRequestStatus`, 'Status is filled in by the server and indicates whether the token can be authenticated.'),
      },
      'x-kubernetes-group-version-kind': [tokenRequestGroupVersionKind],
    },
    [`${authentication}.TokenRequestSpec`]: {
      description: 'TokenRequestSpec contains client provided parameters of a token request.',
      type: 'object',
      required: ['audiences'],
      properties: {
        audiences: {
          type: 'array',
          items: { type: 'string', default: '' },
          description:
            'Audiences are the intendend audiences of the token. A recipient of a token must identify themself with an identifier in the list of audiences of the token, and otherwise should reject the token. A token issued for multiple audiences may be used to authenticate against any of the audiences listed but implies a high degree of trust between the target audiences.',
          'x-kubernetes-list-type': 'atomic',
        },
        boundObjectRef: ref(
          `${authentication}.BoundObjectReference`,
          "BoundObjectRef is a reference to an object that the token will be bound to. The token will only be valid for as long as the bound object exists. NOTE: The API server's TokenReview endpoint will validate the BoundObjectRef, but other audiences may not. Keep ExpirationSeconds small if you want prompt revocation.",
        ),
        expirationSeconds: {
          type: 'integer',
          format: 'int64',
          description:
            "ExpirationSeconds is the requested duration of validity of the request. The token issuer may return a token with a different validity duration so a client needs to check the 'expiration' field in a response.",
        },
      },
    },
    [`${authentication}.TokenRequestStatus`]: {
      description: 'TokenRequestStatus is the result of a token request.',
      type: 'object',
      required: ['token', 'expirationTimestamp'],
      properties: {
        expirationTimestamp: ref(metaNames.time, 'ExpirationTimestamp is the time of expiration of the returned token.'),
        token: { type: 'string', default: '', description: 'Token is the opaque bearer token.' },
      },
    },
  };
}

/** Built-in definitions of subresource kinds a scheme may not register (they are not stored), by their upstream name. */
const knownKinds: Record<string, { name: string; definitions: (flavour: OpenAPIFlavour) => Record<string, JSONSchema> }> = {
  'authentication.k8s.io/v1/TokenRequest': { name: tokenRequestName, definitions: tokenRequestDefinitions },
};

/**
 * The definitions of the kinds of `definition`'s {@link externalSubresources}: the scheme's schema when it
 * has one, else upstream's definition of a known kind (TokenRequest), else a permissive object schema.
 */
export function externalSubresourceDefinitions(
  definition: ResourceDefinition,
  options: { schemaFor: (gvk: GroupVersionKind) => JSONSchema | undefined; definitionName: (gvk: GroupVersionKind) => string; flavour: OpenAPIFlavour },
): Record<string, JSONSchema> {
  const definitions: Record<string, JSONSchema> = {};
  for (const { kind } of externalSubresources(definition)) {
    const source = options.schemaFor(kind);
    const known = knownKinds[`${kind.group}/${kind.version}/${kind.kind}`];
    // The built-in definitions reference each other by upstream name: used only where the namer agrees.
    if (source === undefined && known?.name === options.definitionName(kind)) Object.assign(definitions, known.definitions(options.flavour));
    else definitions[options.definitionName(kind)] = kindDefinition(kind, source, options.flavour);
  }
  return definitions;
}
