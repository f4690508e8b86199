/**
 * Local `$ref` resolution of an OpenAPI document: only `#/components/...` pointers are followed;
 * anything else (another file, a URL) is refused, so no spec makes the server fetch or read
 * anything. Recursion is bounded: a schema that refers to itself is expanded once, then left as
 * a described placeholder with a warning. Pure.
 */

/** A `$ref` that cannot be resolved: the operation using it is skipped with this message. */
export class UnresolvableRefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnresolvableRefError";
  }
}

/** The deepest chain of nested references followed. */
export const MAX_REF_DEPTH = 16;
/** Nodes one resolution may produce: a spec that would expand to more is refused. */
const MAX_RESOLVED_NODES = 50_000;

function pointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#/components/")) throw new UnresolvableRefError(`$ref ${JSON.stringify(ref)} is not a local #/components reference`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.prototype.hasOwnProperty.call(node, part)) throw new UnresolvableRefError(`$ref ${JSON.stringify(ref)} points at nothing`);
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Resolves every `$ref` inside `node` against `root`; `warnings` collects what was cut short. */
export function resolveRefs(node: unknown, root: unknown, warnings: string[]): unknown {
  let count = 0;
  const walk = (n: unknown, stack: readonly string[]): unknown => {
    if (++count > MAX_RESOLVED_NODES) throw new UnresolvableRefError(`the schema expands to more than ${MAX_RESOLVED_NODES} nodes`);
    if (Array.isArray(n)) return n.map((x) => walk(x, stack));
    if (typeof n !== "object" || n === null) return n;
    const obj = n as Record<string, unknown>;
    if (typeof obj.$ref === "string") {
      const ref = obj.$ref;
      const siblings = { ...obj };
      delete siblings.$ref;
      if (stack.includes(ref) || stack.length >= MAX_REF_DEPTH) {
        const why = stack.includes(ref) ? "recursive" : "nested too deep";
        const note = `${ref} is ${why}; not expanded further`;
        if (!warnings.includes(note)) warnings.push(note);
        return { description: `(${ref.split("/").pop()}: ${why} schema, not expanded)` };
      }
      const target = walk(pointer(root, ref), [...stack, ref]);
      // OpenAPI 3.1 lets a $ref carry sibling keywords (a description…); they win over the target's.
      const rest = walk(siblings, stack) as Record<string, unknown>;
      return typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>), ...rest } : target;
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, walk(v, stack)]));
  };
  return walk(node, []);
}
