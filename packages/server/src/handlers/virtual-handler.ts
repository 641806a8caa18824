import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { requestContext, requestTarget, type Authorizer } from '@kapi/filters';
import type { RequestScope } from '../resource-definition.js';
import { decodeRequestObject, type Endpoint } from './decode-object.js';
import { parseWriteQuery } from './query-options.js';
import { decodeObjectBody, objectMediaType, readBody, type ProtobufBodyDecoder } from './request-body.js';
import type { ResourcePath } from './resource-path.js';
import { writeObject } from './response-writer.js';

/**
 * Serves a virtual resource (`definition.virtual`, e.g. SelfSubjectAccessReview): only POST, the body is
 * decoded and checked like any create, the resource's function computes the answer, nothing is stored.
 */
export async function handleVirtualRequest(
  request: IncomingMessage,
  response: ServerResponse,
  endpoint: Endpoint,
  path: ResourcePath,
  protobuf: ProtobufBodyDecoder | undefined,
  authorizer: Authorizer | undefined,
): Promise<void> {
  const { definition } = endpoint;
  const virtual = definition.virtual;
  if (!virtual || request.method !== 'POST' || path.name !== '' || path.subresource !== '') {
    throw StatusError.methodNotAllowed(request.method ?? 'GET', { group: definition.group, resource: definition.resource });
  }
  const write = parseWriteQuery(requestTarget(request).query, 'CreateOptions');
  const body = decodeObjectBody(objectMediaType(request), await readBody(request), protobuf);
  const object = decodeRequestObject(request, body, endpoint, write.fieldValidation);
  const user = requestContext(request).user;
  const scope: RequestScope = {
    namespace: path.namespace,
    name: '',
    subresource: '',
    dryRun: write.dryRun,
    ...(user ? { user } : {}),
    ...(authorizer ? { authorizer } : {}),
  };
  const result = await virtual.create(object, scope);
  writeObject(request, response, 201, result);
}
