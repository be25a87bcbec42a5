// Which operations this session shows and accepts: toolsets, read-only mode and the member's consent
// are applied here, once, not checked in handlers. Every kind of tool (direct, gateway, workflow)
// resolves through the same registry, so read-only mode and read consent bind them all alike.
import type { Operation, Scope, Toolset } from '../../operation.js';
import type { Refusal } from '../render/refusal.js';
import type { OperationSet } from './operation-set.js';

export interface SurfacePolicy {
  /**
   * 'default': the small surface of src/mcp/operations/default-surface.ts; every operation stays callable
   * through the gateway. 'code': code mode only (the script tools, find_operations, describe_operation),
   * every operation and tool of the default surface callable from a script.
   */
  toolsets: Toolset[] | 'all' | 'default' | 'code';
  /** WORKSPACE_READ_ONLY: no write tool is listed or callable. */
  readOnly: boolean;
  /** The member's consent when known (OAuth): a read scope is a ceiling like read-only. */
  grantedScope?: Scope;
}

/** Names are cut in messages: a tool name (a prompt's, a URI) is whatever the client sent, possibly a megabyte. */
export function shownName(name: string, max = 80): string {
  return name.length > max ? `${name.slice(0, max)}... (${name.length} characters)` : name;
}

/** Why a tool that changes data cannot run in this session, in words for the assistant. */
function writeRefusal(policy: SurfacePolicy, name: string): Refusal | undefined {
  if (policy.readOnly) {
    return {
      ok: false,
      code: 'read_only',
      message: `Tool "${shownName(name)}" changes data and this server runs read-only (WORKSPACE_READ_ONLY=true). Nothing was sent.`,
    };
  }
  if (policy.grantedScope === 'read') {
    return {
      ok: false,
      code: 'scope',
      message: `Tool "${shownName(name)}" changes data, but the member granted read-only access. Sign in again with write consent to use it. Nothing was sent.`,
    };
  }
  return undefined;
}

export class ToolRegistry {
  constructor(
    readonly operations: OperationSet,
    readonly policy: SurfacePolicy,
  ) {}

  get(name: string): Operation | undefined {
    return this.operations.get(name);
  }

  writesAllowed(): boolean {
    return !this.policy.readOnly && this.policy.grantedScope !== 'read';
  }

  private inToolsets(op: Operation): boolean {
    const t = this.policy.toolsets;
    return t === 'all' || t === 'default' || t === 'code' || t.includes(op.toolset);
  }

  /** Callable in this session (toolsets aside): reads always, writes unless read-only or read consent. */
  permitted(op: Pick<Operation, 'scope'>): boolean {
    return op.scope === 'read' || this.writesAllowed();
  }

  /**
   * Why a tool of this name and scope cannot run in this session (read-only mode, read consent), or
   * undefined: the one write check, for operations and the session's own tools alike.
   */
  refusal(tool: { name: string; scope: Scope }): Refusal | undefined {
    return tool.scope === 'write' ? writeRefusal(this.policy, tool.name) : undefined;
  }

  /** The operation of this name when this session may call it (toolsets aside), for a step's inner reads. */
  permittedNamed(name: string): Operation | undefined {
    const op = this.get(name);
    return op && this.permitted(op) ? op : undefined;
  }

  /** Every operation this session may call, in catalog order, then the generated ones. */
  callable(): Operation[] {
    return this.operations.all().filter((op) => this.inToolsets(op) && this.permitted(op));
  }

  /** The operations listed one tool each: none on the default surface (it lists its own tools). */
  listed(): Operation[] {
    return this.policy.toolsets === 'default' || this.policy.toolsets === 'code' ? [] : this.callable();
  }

  /** The operation behind a tool name, or why it cannot be called in this session. */
  resolve(name: string): Operation | Refusal {
    const op = this.operations.get(name);
    if (!op) {
      return {
        ok: false,
        code: 'unknown',
        message: `Unknown tool "${shownName(name)}". Call tools/list for the tools of this server, or find_operations to search every operation.`,
      };
    }
    if (!this.inToolsets(op)) {
      return {
        ok: false,
        code: 'toolset',
        message: `Tool "${op.name}" belongs to the "${op.toolset}" area, which is not enabled. Add it to WORKSPACE_TOOLSETS (or use all).`,
      };
    }
    return this.refusal(op) ?? op;
  }
}
