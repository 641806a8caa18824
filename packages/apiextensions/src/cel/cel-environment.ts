import { CelScalar, celEnv, type CelEnv, type CelFunc } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { RE2JS } from '@bufbuild/re2';
import { authorizerLibrary } from './authorizer-library.js';
import { kubernetesLibrary } from './kubernetes-library.js';
import { optionalMethods } from './optional-value.js';

let shared: CelEnv | undefined;

type Matcher = { test(text: string): boolean };
const compiledPatterns = new Map<string, Matcher>();

/** RE2 patterns compiled once per pattern (`matches()` with a literal pattern would otherwise compile per call). */
const cachedRE2 = {
  compile(pattern: string): Matcher {
    let matcher = compiledPatterns.get(pattern);
    if (matcher === undefined) {
      const compiled = RE2JS.compile(pattern);
      matcher = { test: (text) => compiled.test(text) };
      if (compiledPatterns.size < 1000) compiledPatterns.set(pattern, matcher);
    }
    return matcher;
  },
};

/** `text.matches(pattern)` as rules evaluate it (RE2, the pattern compiled once). */
export function patternMatches(text: string, pattern: string): boolean {
  return cachedRE2.compile(pattern).test(text);
}

/** The CEL environment of CRD validation rules: `self` and `oldSelf`, the strings extension, Kubernetes' libraries and optional `oldSelf`. */
export function ruleEnvironment(): CelEnv {
  shared ??= environmentOf(['self', 'oldSelf']);
  return shared;
}

let admission: CelEnv | undefined;

/** The CEL environment of admission expressions (webhook matchConditions): `object`, `oldObject`, `request` and `authorizer`. */
export function admissionEnvironment(): CelEnv {
  admission ??= environmentOf(['object', 'oldObject', 'request', 'authorizer'], authorizerLibrary);
  return admission;
}

let policy: CelEnv | undefined;

/**
 * The CEL environment of ValidatingAdmissionPolicy expressions: `object`, `oldObject`, `request`,
 * `params`, `namespaceObject`, `variables` and `authorizer`.
 */
export function policyEnvironment(): CelEnv {
  policy ??= environmentOf(['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables', 'authorizer'], authorizerLibrary);
  return policy;
}

function environmentOf(variables: string[], extra: CelFunc[] = []): CelEnv {
  return celEnv({
    variables: Object.fromEntries(variables.map((name) => [name, CelScalar.DYN])),
    funcs: [...strings, ...kubernetesLibrary, ...optionalMethods, ...extra],
    re2: cachedRE2,
  });
}
