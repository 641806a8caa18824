import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { GenericAPIServer, ResourceDefinition, ResourceStrategy } from '@kapi/server';
import { compileSchema } from '../schema/compile-schema.js';
import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import type { CustomResourceDefinition } from '../crd/types.js';
import type { CustomResourceScheme } from './custom-resource-scheme.js';
import { webhookConverter } from '../conversion/webhook-converter.js';
import type { ServiceResolver } from '../conversion/webhook-client.js';
import { customResourceServing } from './definition-for-crd.js';

/** What the embedding server does when a custom resource is installed or its CRD is deleted. */
export interface CustomResourceHooks {
  /**
   * Called with a custom resource's definition right before it is installed (again on every re-install,
   * e.g. a storage-version change): the place to register its StorageVersion, so that the write barrier
   * holds writes until it is published. A returned definition is installed instead (e.g. with
   * namespace-lifecycle admission added to its strategy).
   */
  onServe?(definition: ResourceDefinition): ResourceDefinition | void;
  /** Called once a deleted CRD's resource is no longer served (e.g. to drop its StorageVersion). */
  onRemove?(groupResource: { group: string; resource: string }): Promise<void> | void;
  /**
   * Called once the CRDs stored at start have been handled (the established ones served): from then on,
   * what {@link onServe} has been given is every custom resource there is (e.g. to delete what was kept
   * for a CRD deleted while no server ran).
   */
  onSynced?(): Promise<void> | void;
}

interface Served {
  /** What the serving was built from (spec and accepted names); a change rebuilds it. */
  fingerprint: string;
  group: string;
  resource: string;
  kind: string;
}

/**
 * Serves the custom resources of established CRDs on a {@link GenericAPIServer} (upstream's
 * crdHandler): each CRD becomes kinds in the scheme and one installed resource, rebuilt when the CRD's
 * spec or accepted names change and removed with the CRD.
 */
export class CustomResourceHandler {
  private readonly served = new Map<string, Served>();
  private readonly terminating = new Set<string>();

  constructor(
    private readonly server: GenericAPIServer,
    private readonly scheme: CustomResourceScheme,
    private readonly hooks: CustomResourceHooks = {},
    private readonly resolveService?: ServiceResolver,
  ) {}

  /** True when the CRD's resource is being served. */
  isServing(crdName: string): boolean {
    return this.served.has(crdName);
  }

  /** Marks a CRD terminating: creates of its resources are refused from now on. */
  setTerminating(crdName: string): void {
    this.terminating.add(crdName);
  }

  /** Serves (or re-serves, when it changed) the CRD's resource. */
  async serve(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    const fingerprint = JSON.stringify([crd.spec, crd.status?.acceptedNames]);
    if (this.served.get(name)?.fingerprint === fingerprint) return;
    await this.remove(name);
    const serving = customResourceServing(crd, this.strategyFor(name));
    const { group } = crd.spec;
    // Conversion None: only apiVersion changes, which the scheme rewrites; Webhook: the store awaits the
    // CRD's webhook (the scheme has no conversion for the kind, and its codec converts nothing).
    const converter = crd.spec.conversion?.strategy === 'Webhook' ? webhookConverter(crd, this.resolveService) : undefined;
    this.scheme.setConvertedAsync(group, serving.definition.kind, converter !== undefined);
    for (const kind of serving.kinds) {
      this.scheme.base.addKind(kind);
      if (kind.version !== serving.storageVersion && !converter) {
        const identity = (object: KubeObject) => object;
        this.scheme.base.addConversion({ group, kind: kind.kind, version: kind.version, toHub: identity, fromHub: identity });
      }
      const schema = crd.spec.versions.find((v) => v.name === kind.version)?.schema?.openAPIV3Schema;
      if (schema) this.scheme.setSchema(kind, compileSchema(schema as JSONSchemaProps));
    }
    this.scheme.base.setHubVersion(group, serving.definition.kind, serving.storageVersion);
    const served = converter ? { ...serving.definition, converter } : serving.definition;
    const definition = this.hooks.onServe?.(served) ?? served;
    this.server.installResource(definition);
    this.served.set(name, { fingerprint, group, resource: definition.resource, kind: definition.kind });
  }

  /** Stops serving the CRD's resource (stored objects stay). */
  async remove(crdName: string): Promise<void> {
    const served = this.served.get(crdName);
    if (!served) return;
    this.served.delete(crdName);
    await this.server.uninstallResource(served.group, served.resource);
    this.scheme.removeKind(served.group, served.kind);
  }

  /** Forgets a deleted CRD. */
  async forget(crdName: string): Promise<void> {
    const served = this.served.get(crdName);
    await this.remove(crdName);
    this.terminating.delete(crdName);
    if (served) await this.hooks.onRemove?.({ group: served.group, resource: served.resource });
  }

  private strategyFor(crdName: string): ResourceStrategy {
    return {
      admit: (operation, _object, _old, scope) => {
        if (operation === 'create' && this.terminating.has(crdName)) {
          const [resource = '', ...group] = crdName.split('.');
          throw StatusError.forbidden(
            { group: group.join('.'), resource },
            scope.name,
            'create not allowed while custom resource definition is terminating',
          );
        }
      },
    };
  }
}
