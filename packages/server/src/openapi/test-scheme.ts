import { Scheme, Type, kindSchema } from '@kapi/apimachinery';

/** Test helper (not exported): a scheme with the kinds of `sampleResources()`. */
export function sampleScheme(): Scheme {
  const scheme = new Scheme();
  scheme.addKind({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    schema: kindSchema({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      description: 'ConfigMap holds configuration data for pods to consume.',
      properties: {
        data: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Data contains the configuration data.' })),
        immutable: Type.Optional(Type.Boolean({ description: 'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.' })),
      },
    }),
  });
  scheme.addKind({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    schema: kindSchema({ kind: 'Namespace', apiVersion: 'v1', status: Type.Object({ phase: Type.Optional(Type.String()) }) }),
  });
  scheme.addKind({
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    schema: kindSchema({ kind: 'Deployment', apiVersion: 'apps/v1', spec: Type.Object({ replicas: Type.Optional(Type.Integer()) }) }),
  });
  for (const version of ['v1', 'v1beta1']) {
    scheme.addKind({
      group: 'example.com',
      version,
      kind: 'Widget',
      schema: kindSchema({
        kind: 'Widget',
        apiVersion: `example.com/${version}`,
        description: 'Widget is a thing that does stuff.',
        spec: Type.Object(
          {
            replicas: Type.Integer({ description: 'Number of desired widget replicas.', minimum: 0 }),
            color: Type.Optional(Type.Union([Type.Literal('red'), Type.Literal('blue')], { description: 'Paint colour.' })),
          },
          { description: 'WidgetSpec is the desired state of a Widget.' },
        ),
        status: Type.Object({ ready: Type.Optional(Type.Boolean()) }, { description: 'Observed state.' }),
      }),
    });
  }
  return scheme;
}
