// Route matching on raw path segments. The path is split on '/' BEFORE percent-decoding, so an
// encoded slash (%2F) stays inside its parameter and can never change which operation is hit.

export interface Route<T> {
  method: string;
  template: string;
  target: T;
}

interface Node<T> {
  literals: Map<string, Node<T>>;
  param?: { name: string; node: Node<T> };
  rest?: { name: string; routes: Map<string, Route<T>> };
  routes: Map<string, Route<T>>;
}

type Match<T> =
  | { kind: 'found'; route: Route<T>; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' }
  | { kind: 'bad_path' };

const newNode = <T>(): Node<T> => ({ literals: new Map(), routes: new Map() });

export class Router<T> {
  private readonly root: Node<T> = newNode();

  /**
   * `rest` names the template's last parameter when it takes the rest of the path (a stored file's
   * path, slashes kept: the operation's segmentedParam).
   */
  add(method: string, template: string, target: T, rest?: string): void {
    const segs = template.split('/').slice(1);
    let node = this.root;
    segs.forEach((seg, i) => {
      // The sandbox reads templates itself (src/path-template.ts is the server's): it imports nothing of the server.
      const m = /^\{([A-Za-z_]+)\}$/.exec(seg);
      if (rest !== undefined && i === segs.length - 1 && m?.[1] === rest) {
        node.rest ??= { name: m[1] as string, routes: new Map() };
        node.rest.routes.set(method, { method, template, target });
        node = undefined as unknown as Node<T>;
        return;
      }
      if (m) {
        node.param ??= { name: m[1] as string, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literals.get(seg);
        if (!next) {
          next = newNode();
          node.literals.set(seg, next);
        }
        node = next;
      }
    });
    if (node) node.routes.set(method, { method, template, target });
  }

  /** `rawPath` is relative to the API root, starting with '/', still percent-encoded. */
  match(method: string, rawPath: string): Match<T> {
    const raw = rawPath.split('/').slice(1);
    const segs: string[] = [];
    for (const s of raw) {
      try {
        segs.push(decodeURIComponent(s));
      } catch {
        return { kind: 'bad_path' };
      }
    }
    const want = method === 'HEAD' ? 'GET' : method;
    // First a path that has this method (a literal segment may shadow a parameter only for its own
    // methods), then any path, to tell 405 from 404.
    const found = this.walk(this.root, segs, 0, [], [], want);
    if (!found) {
      const allowed = new Set<string>();
      this.methodsAt(this.root, segs, 0, allowed);
      return allowed.size > 0 ? { kind: 'method_not_allowed', allowed: [...allowed] } : { kind: 'not_found' };
    }
    const route = found.routes.get(want) as Route<T>;
    const params: Record<string, string> = {};
    for (const [i, n] of found.names.entries()) params[n] = found.values[i] as string;
    return { kind: 'found', route, params };
  }

  /** Every method any route matching the path answers (for 405 and its Allow header). */
  private methodsAt(node: Node<T>, segs: string[], i: number, out: Set<string>): void {
    if (i === segs.length) {
      for (const m of node.routes.keys()) out.add(m);
      return;
    }
    const seg = segs[i] as string;
    const lit = node.literals.get(seg);
    if (lit) this.methodsAt(lit, segs, i + 1, out);
    if (node.param && seg !== '') this.methodsAt(node.param.node, segs, i + 1, out);
    if (node.rest && segs.slice(i).every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('/'))) {
      for (const m of node.rest.routes.keys()) out.add(m);
    }
  }

  private walk(
    node: Node<T>,
    segs: string[],
    i: number,
    values: string[],
    names: string[],
    method: string | undefined,
  ): { routes: Map<string, Route<T>>; names: string[]; values: string[] } | undefined {
    const fits = (routes: Map<string, Route<T>>) => (method ? routes.has(method) : routes.size > 0);
    if (i === segs.length) return fits(node.routes) ? { routes: node.routes, names, values } : undefined;
    const seg = segs[i] as string;
    // Literal segments win over parameters (`/methods/templates` before `/methods/{method}`).
    const lit = node.literals.get(seg);
    if (lit) {
      const r = this.walk(lit, segs, i + 1, values, names, method);
      if (r) return r;
    }
    if (node.param && seg !== '') {
      const r = this.walk(node.param.node, segs, i + 1, [...values, seg], [...names, node.param.name], method);
      if (r) return r;
    }
    if (node.rest && fits(node.rest.routes)) {
      const tail = segs.slice(i);
      // A stored file's path: no empty, '.' or '..' segment can walk out of its disk.
      if (tail.every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('/'))) {
        return { routes: node.rest.routes, names: [...names, node.rest.name], values: [...values, tail.join('/')] };
      }
    }
    return undefined;
  }
}
