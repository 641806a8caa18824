/** CustomResourceDefinitions the CRD e2e tests apply, and their polling helper. */

/** What {@link customResourceDefinition} builds. */
export interface CustomResourceDefinitionOptions {
  group: string;
  kind: string;
  /** Default: the kind in lower case plus `s`. */
  plural?: string;
  /** Served versions; default `['v1']`. */
  versions?: string[];
  /** The storage version; default the first version. */
  storage?: string;
  /** The schema of `spec` in every version; default an object with an integer `size`. */
  spec?: Record<string, unknown>;
  /** The schema of `spec` per version, where versions differ (instead of `spec`). */
  specs?: Record<string, Record<string, unknown>>;
  /** `spec.conversion`; default none (strategy None). */
  conversion?: Record<string, unknown>;
}

/** The schema of `spec` when none is given: `{ size: integer }`. */
const sizeSpec = { type: 'object', properties: { size: { type: 'integer' } } };

/** A namespaced `apiextensions.k8s.io/v1` CRD. */
export function customResourceDefinition(options: CustomResourceDefinitionOptions): Record<string, unknown> {
  const { group, kind } = options;
  const plural = options.plural ?? `${kind.toLowerCase()}s`;
  const versions = options.versions ?? ['v1'];
  const storage = options.storage ?? versions[0];
  const spec = options.spec ?? sizeSpec;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: versions.map((name) => ({
        name,
        served: true,
        storage: name === storage,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: options.specs?.[name] ?? spec } } },
      })),
      ...(options.conversion ? { conversion: options.conversion } : {}),
    },
  };
}

/** Calls `read` every 100 ms until `done` accepts its value (30 s at most, then throws naming `what`). */
export async function until<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 300; attempt++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}`);
}
