// Which operations this session shows and accepts: toolsets, read-only mode and the token's scope are
// applied here, once, not checked in handlers.
import type { Operation, Scope, Toolset } from '../operation.js';

export interface SurfacePolicy {
  toolsets: Toolset[] | 'all';
  /** WORKSPACE_READ_ONLY: no write tool is listed or callable. */
  readOnly: boolean;
  /** The token's scope when known (OAuth consent); a read scope is a ceiling like read-only. */
  grantedScope?: Scope;
}

export type Refusal = { reason: 'unknown' | 'toolset' | 'read_only' | 'scope'; message: string };

export class ToolRegistry {
  private readonly byName = new Map<string, Operation>();

  constructor(
    private readonly operations: readonly Operation[],
    private readonly policy: SurfacePolicy,
  ) {
    for (const op of operations) this.byName.set(op.name, op);
  }

  private writesAllowed(): boolean {
    return !this.policy.readOnly && this.policy.grantedScope !== 'read';
  }

  private inToolsets(op: Operation): boolean {
    return this.policy.toolsets === 'all' || this.policy.toolsets.includes(op.toolset);
  }

  /** The operations listed as tools, in catalog order. */
  listed(): Operation[] {
    return this.operations.filter((op) => this.inToolsets(op) && (op.scope === 'read' || this.writesAllowed()));
  }

  /** The operation behind a tool name, or why it cannot be called in this session. */
  resolve(name: string): Operation | Refusal {
    const op = this.byName.get(name);
    if (!op) return { reason: 'unknown', message: `Unknown tool "${name}". Call tools/list for the tools of this server.` };
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
