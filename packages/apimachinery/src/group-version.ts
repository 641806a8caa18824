/** Group/version/kind/resource identifiers with Kubernetes' string forms. */

/** A group and version, e.g. `{group: 'apps', version: 'v1'}`; the core group is `''`. */
export interface GroupVersion {
  group: string;
  version: string;
}

/** A group, version and kind. */
export interface GroupVersionKind extends GroupVersion {
  kind: string;
}

/** A group, version and resource (plural lower-case name). */
export interface GroupVersionResource extends GroupVersion {
  resource: string;
}

/** A group and resource. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** `apps/v1`, or `v1` for the core group (the apiVersion form). */
export function groupVersionString(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** Parses an apiVersion (`v1`, `apps/v1`) into a GroupVersion. */
export function parseGroupVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `pods` for the core group, `deployments.apps` otherwise (GroupResource.String()). */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** `apps/v1, Kind=Deployment` (GroupVersionKind.String()). */
export function groupVersionKindString(gvk: GroupVersionKind): string {
  return `${groupVersionString(gvk)}, Kind=${gvk.kind}`;
}

/** `apps/v1, Resource=deployments` (GroupVersionResource.String()). */
export function groupVersionResourceString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}
