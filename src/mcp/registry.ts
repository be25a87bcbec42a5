// Which operations this session shows and accepts: toolsets, read-only mode and the token's scope are
// applied here, once, not checked in handlers. The gateway (call_operation) resolves through the same
// registry, so read-only mode and read consent bind it exactly as they bind a direct tool.
import type { Operation, Scope, Toolset } from '../operation.js';

export interface SurfacePolicy {
  /** 'default': the small surface of src/mcp/surface.ts; every operation stays callable through the gateway. */
  toolsets: Toolset[] | 'all' | 'default';
  /** WORKSPACE_READ_ONLY: no write tool is listed or callable. */
  readOnly: boolean;
  /** The token's scope when known (OAuth consent); a read scope is a ceiling like read-only. */
  grantedScope?: Scope;
}

export type Refusal = { reason: 'unknown' | 'toolset' | 'read_only' | 'scope'; message: string };

export class ToolRegistry {
  private readonly byName = new Map<string, Operation>();
  private operations: Operation[];

  constructor(
    operations: readonly Operation[],
    readonly policy: SurfacePolicy,
  ) {
    this.operations = [...operations];
    for (const op of operations) this.byName.set(op.name, op);
  }

  /** Operations learnt after start (the live OpenAPI description); names already taken are skipped. */
  add(ops: readonly Operation[]): Operation[] {
    const added = ops.filter((op) => !this.byName.has(op.name));
    for (const op of added) this.byName.set(op.name, op);
    this.operations = [...this.operations, ...added];
    return added;
  }

  get(name: string): Operation | undefined {
    return this.byName.get(name);
  }

  /** The operation at a method and path, whatever its name (catalog or live description), toolsets aside. */
  at(method: string, path: string): Operation | undefined {
    return this.operations.find((op) => op.method === method && op.path === path);
  }

  writesAllowed(): boolean {
    return !this.policy.readOnly && this.policy.grantedScope !== 'read';
  }

  private inToolsets(op: Operation): boolean {
    const t = this.policy.toolsets;
    return t === 'all' || t === 'default' || t.includes(op.toolset);
  }

  /** Callable in this session (toolsets aside): reads always, writes unless read-only or read consent. */
  permitted(op: Operation): boolean {
    return op.scope === 'read' || this.writesAllowed();
  }

  /** Every operation this session may call, in catalog order, then the generated ones. */
  callable(): Operation[] {
    return this.operations.filter((op) => this.inToolsets(op) && this.permitted(op));
  }

  /** The operations listed one tool each: none on the default surface (it lists its own tools). */
  listed(): Operation[] {
    return this.policy.toolsets === 'default' ? [] : this.callable();
  }

  /** The operation behind a tool name, or why it cannot be called in this session. */
  resolve(name: string): Operation | Refusal {
    const op = this.byName.get(name);
    if (!op) return { reason: 'unknown', message: `Unknown tool "${name}". Call tools/list for the tools of this server, or find_operations to search every operation.` };
    if (!this.inToolsets(op)) {
      return {
        reason: 'toolset',
        message: `Tool "${name}" belongs to the "${op.toolset}" area, which is not enabled. Add it to WORKSPACE_TOOLSETS (or use all).`,
      };
    }
    if (op.scope === 'write' && this.policy.readOnly) {
      return { reason: 'read_only', message: `Tool "${name}" changes data and this server runs read-only (WORKSPACE_READ_ONLY=true). Nothing was sent.` };
    }
    if (op.scope === 'write' && this.policy.grantedScope === 'read') {
      return {
        reason: 'scope',
        message: `Tool "${name}" changes data, but the member granted read-only access. Sign in again with write consent to use it. Nothing was sent.`,
      };
    }
    return op;
  }
}

export function isRefusal(x: Operation | Refusal): x is Refusal {
  return 'reason' in x && !('method' in x);
}
