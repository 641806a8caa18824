import { Type, kindSchema, type KubeObject, type Scheme } from '@kapi/apimachinery';

/** The API group of the sample server. */
export const wardleGroup = 'wardle.example.com';
/** Served versions, preferred first. */
export const wardleVersions = ['v1beta1', 'v1alpha1'] as const;
/** A served wardle version. */
export type WardleVersion = (typeof wardleVersions)[number];

const referenceType = Type.String({ description: 'Flunder or Fischer.' });

/** v1beta1 (and internal) FlunderSpec: one reference field per referenced kind. */
const flunderSpecV1beta1 = Type.Object({
  flunderReference: Type.Optional(Type.String({ description: 'The name of a Flunder, when referenceType is Flunder.' })),
  fischerReference: Type.Optional(Type.String({ description: 'The name of a Fischer, when referenceType is Fischer.' })),
  referenceType: Type.Optional(referenceType),
});

/** v1alpha1 FlunderSpec: one reference, its kind in referenceType. */
const flunderSpecV1alpha1 = Type.Object({
  reference: Type.Optional(Type.String({ description: 'The name of a Flunder or a Fischer.' })),
  referenceType: Type.Optional(referenceType),
});

const flunderStatus = Type.Object({});

function flunderSchema(version: WardleVersion) {
  return kindSchema({
    group: wardleGroup,
    version,
    kind: 'Flunder',
    spec: version === 'v1beta1' ? flunderSpecV1beta1 : flunderSpecV1alpha1,
    status: flunderStatus,
  });
}

function fischerSchema(version: WardleVersion) {
  return kindSchema({
    group: wardleGroup,
    version,
    kind: 'Fischer',
    properties: {
      disallowedFlunders: Type.Optional(
        Type.Array(Type.String(), { description: 'Names of Flunders that may not be created.' }),
      ),
    },
  });
}

type Spec = Record<string, unknown>;

/** v1alpha1 defaulting (as sample-apiserver): referenceType is Flunder when a reference is set. */
function defaultV1alpha1Flunder(object: KubeObject): void {
  const spec = object['spec'] as Spec | undefined;
  if (spec && typeof spec['reference'] === 'string' && spec['reference'] !== '' && !spec['referenceType']) {
    spec['referenceType'] = 'Flunder';
  }
}

/** v1alpha1 -> hub: `reference` goes to the field of its referenceType. */
function flunderToHub(object: KubeObject): KubeObject {
  const { spec, ...rest } = object as KubeObject & { spec?: Spec };
  if (!spec) return { ...rest };
  const { reference, referenceType: type, ...others } = spec;
  const hubSpec: Spec = { ...others };
  if (type !== undefined) hubSpec['referenceType'] = type;
  if (typeof reference === 'string' && reference !== '') {
    hubSpec[type === 'Fischer' ? 'fischerReference' : 'flunderReference'] = reference;
  }
  return { ...rest, spec: hubSpec };
}

/** hub -> v1alpha1: the set reference field becomes `reference` (a Fischer reference wins). */
function flunderFromHub(object: KubeObject): KubeObject {
  const { spec, ...rest } = object as KubeObject & { spec?: Spec };
  if (!spec) return { ...rest };
  const { flunderReference, fischerReference, referenceType: type, ...others } = spec;
  const alphaSpec: Spec = { ...others };
  if (typeof fischerReference === 'string' && fischerReference !== '') {
    alphaSpec['reference'] = fischerReference;
  } else if (typeof flunderReference === 'string' && flunderReference !== '') {
    alphaSpec['reference'] = flunderReference;
  }
  if (type !== undefined) alphaSpec['referenceType'] = type;
  return { ...rest, spec: alphaSpec };
}

/**
 * Registers Flunder and Fischer at v1beta1 (the hub, sample-apiserver's internal shape) and v1alpha1,
 * with the Flunder conversion between them (Fischer has the same shape in both).
 */
export function addWardleToScheme(scheme: Scheme): Scheme {
  scheme.addKind({ group: wardleGroup, version: 'v1beta1', kind: 'Flunder', schema: flunderSchema('v1beta1') });
  scheme.addKind({
    group: wardleGroup,
    version: 'v1alpha1',
    kind: 'Flunder',
    schema: flunderSchema('v1alpha1'),
    defaulter: defaultV1alpha1Flunder,
  });
  scheme.addConversion({
    group: wardleGroup,
    kind: 'Flunder',
    version: 'v1alpha1',
    toHub: flunderToHub,
    fromHub: flunderFromHub,
  });
  for (const version of wardleVersions) {
    scheme.addKind({ group: wardleGroup, version, kind: 'Fischer', schema: fischerSchema(version) });
  }
  scheme.addConversion({
    group: wardleGroup,
    kind: 'Fischer',
    version: 'v1alpha1',
    toHub: (object) => ({ ...object }),
    fromHub: (object) => ({ ...object }),
  });
  return scheme;
}
