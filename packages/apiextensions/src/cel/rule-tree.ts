import type { FieldError } from '@kapi/apimachinery';
import type { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props.js';
import { childPath, isRecord, type SchemaNode } from '../schema/schema-node.js';
import { compileRule, type RuleProgram } from './rule-program.js';
import { ruleShapeErrors } from './rule-shape.js';
import { escapePropertyName } from './cel-value.js';

/** The compiled rules of a schema, in a tree shaped like the schema, holding only branches that contain rules. */
export interface RuleNode {
  readonly schema: SchemaNode;
  readonly rules: RuleProgram[];
  readonly properties: Map<string, RuleNode>;
  /** `properties` as a list, with each property's CEL name (escaped), for the walk. */
  readonly propertyList: readonly { name: string; celName: string; node: RuleNode }[];
  readonly additionalProperties: RuleNode | undefined;
  readonly items: RuleNode | undefined;
}

/** The outcome of compiling all rules of a schema. */
export interface CompiledRules {
  root: RuleNode | undefined;
  programs: RuleProgram[];
  /** Rules that are malformed or do not compile, as CRD field errors (`...x-kubernetes-validations[0].rule`). */
  problems: FieldError[];
  /** Each program with the CRD path of its rule, for cost checks. */
  located: { path: string; program: RuleProgram }[];
}

/**
 * Compiles every `x-kubernetes-validations` rule of a schema once. `path` is the CRD field path of the schema
 * (`spec.versions[0].schema.openAPIV3Schema`), used in problem reports as upstream writes them
 * (`...properties[spec].x-kubernetes-validations[0].rule`).
 */
export function compileRules(schema: JSONSchemaProps, path = 'openAPIV3Schema'): CompiledRules {
  const out: CompiledRules = { root: undefined, programs: [], problems: [], located: [] };
  out.root = compileNode(schema as SchemaNode, path, out);
  return out;
}

function compileNode(schema: SchemaNode, path: string, out: CompiledRules): RuleNode | undefined {
  const rules: RuleProgram[] = [];
  const declared = schema['x-kubernetes-validations'];
  if (Array.isArray(declared)) {
    declared.forEach((entry: unknown, index) => {
      if (!isRecord(entry) || typeof entry['rule'] !== 'string') return;
      const rule = entry as unknown as ValidationRule;
      const rulePath = `${path}.x-kubernetes-validations[${index}]`;
      out.problems.push(...ruleShapeErrors(rule, rulePath));
      if (rule.rule.trim() === '') return;
      const compiled = compileRule(rule, schema);
      if ('evaluate' in compiled) {
        rules.push(compiled);
        out.programs.push(compiled);
        out.located.push({ path: childPath(rulePath, 'rule'), program: compiled });
        return;
      }
      const failed = (field: string, value: unknown, detail: string): FieldError => ({
        field: childPath(rulePath, field),
        type: 'FieldValueInvalid',
        value,
        detail,
      });
      if (compiled.ruleError !== undefined) out.problems.push(failed('rule', rule.rule, compiled.ruleError));
      if (compiled.messageError !== undefined)
        out.problems.push(failed('messageExpression', rule.messageExpression, compiled.messageError));
    });
  }
  const properties = new Map<string, RuleNode>();
  const declaredProperties = schema['properties'];
  if (isRecord(declaredProperties))
    for (const [name, child] of Object.entries(declaredProperties)) {
      if (!isRecord(child)) continue;
      const node = compileNode(child, `${path}.properties[${name}]`, out);
      if (node) properties.set(name, node);
    }
  const additional = isRecord(schema['additionalProperties'])
    ? compileNode(schema['additionalProperties'], `${path}.additionalProperties`, out)
    : undefined;
  const items = isRecord(schema['items']) ? compileNode(schema['items'], `${path}.items`, out) : undefined;
  if (rules.length === 0 && properties.size === 0 && additional === undefined && items === undefined)
    return undefined;
  const propertyList = [...properties].map(([name, node]) => ({ name, celName: escapePropertyName(name), node }));
  return { schema, rules, properties, propertyList, additionalProperties: additional, items };
}
