import { CelScalar, celEnv, type CelEnv } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { kubernetesLibrary } from './kubernetes-library.js';
import { optionalMethods } from './optional-value.js';

let shared: CelEnv | undefined;

/** The CEL environment of CRD validation rules: `self` and `oldSelf`, the strings extension, Kubernetes' libraries and optional `oldSelf`. */
export function ruleEnvironment(): CelEnv {
  shared ??= celEnv({
    variables: { self: CelScalar.DYN, oldSelf: CelScalar.DYN },
    funcs: [...strings, ...kubernetesLibrary, ...optionalMethods],
  });
  return shared;
}
