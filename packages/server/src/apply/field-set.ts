import { compareElements, type FieldPath, type PathElement } from './field-path.js';

/** One node of a {@link FieldSet} trie: whether the path to it is a member, and its children. */
interface Node {
  member: boolean;
  children: Map<PathElement, Node>;
}

function emptyNode(): Node {
  return { member: false, children: new Map() };
}

function nodeEmpty(node: Node): boolean {
  return !node.member && node.children.size === 0;
}

function unionNodes(left: Node, right: Node): Node {
  if (nodeEmpty(left)) return right;
  if (nodeEmpty(right)) return left;
  const children = new Map(left.children);
  for (const [element, child] of right.children) {
    const existing = children.get(element);
    children.set(element, existing ? unionNodes(existing, child) : child);
  }
  return { member: left.member || right.member, children };
}

function differenceNodes(left: Node, right: Node): Node {
  if (nodeEmpty(right) || nodeEmpty(left)) return left;
  const children = new Map<PathElement, Node>();
  for (const [element, child] of left.children) {
    const other = right.children.get(element);
    const result = other ? differenceNodes(child, other) : child;
    if (!nodeEmpty(result)) children.set(element, result);
  }
  return { member: left.member && !right.member, children };
}

function intersectionNodes(left: Node, right: Node): Node {
  const children = new Map<PathElement, Node>();
  const [small, large] = left.children.size <= right.children.size ? [left, right] : [right, left];
  for (const [element, child] of small.children) {
    const other = large.children.get(element);
    if (!other) continue;
    const result = intersectionNodes(child, other);
    if (!nodeEmpty(result)) children.set(element, result);
  }
  return { member: left.member && right.member, children };
}

function equalNodes(left: Node, right: Node): boolean {
  if (left === right) return true;
  if (left.member !== right.member || left.children.size !== right.children.size) return false;
  for (const [element, child] of left.children) {
    const other = right.children.get(element);
    if (!other || !equalNodes(child, other)) return false;
  }
  return true;
}

/**
 * A set of field paths (structured-merge-diff `fieldpath.Set`), held as a trie keyed by path elements.
 * A path is a member when the node it leads to is marked; intermediate nodes need not be members.
 * The set operations return new sets and share unchanged subtrees, so sets are treated as immutable
 * once built; {@link FieldSet.insert} is for building.
 */
export class FieldSet {
  private constructor(private root: Node) {}

  /** An empty set. */
  static empty(): FieldSet {
    return new FieldSet(emptyNode());
  }

  /** A set holding the given paths. */
  static of(...paths: FieldPath[]): FieldSet {
    const set = FieldSet.empty();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** Adds `path` (building only: mutates this set). The empty path is ignored. */
  insert(path: FieldPath): this {
    if (path.length === 0) return this;
    let node = this.root;
    for (const element of path) {
      let child = node.children.get(element);
      if (!child) {
        child = emptyNode();
        node.children.set(element, child);
      }
      node = child;
    }
    node.member = true;
    return this;
  }

  /** Whether `path` is a member. */
  has(path: FieldPath): boolean {
    let node: Node | undefined = this.root;
    for (const element of path) {
      node = node.children.get(element);
      if (!node) return false;
    }
    return path.length > 0 && node.member;
  }

  /** True when no path is a member. */
  isEmpty(): boolean {
    return this.root.children.size === 0;
  }

  /** Paths in either set. */
  union(other: FieldSet): FieldSet {
    return new FieldSet(unionNodes(this.root, other.root));
  }

  /** Paths of this set that are not in `other`. */
  difference(other: FieldSet): FieldSet {
    return new FieldSet(differenceNodes(this.root, other.root));
  }

  /** Paths in both sets. */
  intersection(other: FieldSet): FieldSet {
    return new FieldSet(intersectionNodes(this.root, other.root));
  }

  /** Same members. */
  equals(other: FieldSet): boolean {
    return equalNodes(this.root, other.root);
  }

  /** The set below `element` (its paths without the leading element); empty when absent. */
  child(element: PathElement): FieldSet {
    const node = this.root.children.get(element);
    return node ? new FieldSet(node) : FieldSet.empty();
  }

  /** Whether `element` itself is a member at the top level. */
  hasMember(element: PathElement): boolean {
    return this.root.children.get(element)?.member ?? false;
  }

  /** The top-level elements that lead to members, in sibling order. */
  elements(): PathElement[] {
    return [...this.root.children.keys()].sort(compareElements);
  }

  /** Every member path in sibling order (parents before their children). */
  paths(): FieldPath[] {
    const result: FieldPath[] = [];
    const walk = (node: Node, prefix: PathElement[]) => {
      for (const element of [...node.children.keys()].sort(compareElements)) {
        const child = node.children.get(element) as Node;
        const path = [...prefix, element];
        if (child.member) result.push(path);
        walk(child, path);
      }
    };
    walk(this.root, []);
    return result;
  }

  /** Removes the top-level `elements` (with everything below them). */
  without(...elements: PathElement[]): FieldSet {
    if (!elements.some((element) => this.root.children.has(element))) return this;
    const children = new Map(this.root.children);
    for (const element of elements) children.delete(element);
    return new FieldSet({ member: false, children });
  }

  /** The subset under `element` only, kept at its place (paths still start with `element`). */
  only(element: PathElement): FieldSet {
    const node = this.root.children.get(element);
    return new FieldSet({ member: false, children: node ? new Map([[element, node]]) : new Map() });
  }

  /** Visits the trie: `visit(element, member, childSet)` for each top-level element, in sibling order. */
  forEach(visit: (element: PathElement, member: boolean, below: FieldSet) => void): void {
    for (const element of this.elements()) {
      const node = this.root.children.get(element) as Node;
      visit(element, node.member, new FieldSet(node));
    }
  }
}
