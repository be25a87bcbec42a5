// One member's view of the workspace: the policy of what they may list and run (toolsets, read-only
// mode, their consent), their API client (their token, their rate budget), the pipeline and the tools
// it lists. Built once per member and shared by every connection and request of theirs: a local
// server has one; the remote mode one per signed-in member.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { ApiClient } from '../../api/client.js';
import { type Config, loadConfig } from '../../config.js';
import { createLogger, type Logger } from '../../log.js';
import type { Operation, Scope } from '../../operation.js';
import type { MemberFileLinks } from '../files/file-links.js';
import { surfaceOperations } from '../operations/default-surface.js';
import { OperationSet } from '../operations/operation-set.js';
import { type SurfacePolicy, ToolRegistry } from '../operations/registry.js';
import { Pipeline } from '../pipeline/pipeline.js';
import type { CallContext, ToolSpec } from '../pipeline/tool-spec.js';
import { isRefusal } from '../render/refusal.js';
import type { ScriptLimits } from '../scripts/script-engine.js';
import { scriptTools } from '../scripts/script-tools.js';
import { callOperationTool } from '../tools/call-operation.js';
import { describeOperationTool } from '../tools/describe-operation.js';
import { documentContextTool } from '../tools/document-context.js';
import { editDocumentBlocks } from '../tools/edit-document-blocks.js';
import { engagementOverviewTool } from '../tools/engagement-overview.js';
import { findOperationsTool } from '../tools/find-operations.js';
import { documentPreviewTool } from '../tools/preview-deliverable-document.js';
import { reviewBoardTool } from '../tools/review-board.js';
import { reviewFindingsTool } from '../tools/review-findings.js';

interface SessionDeps {
  config: Config;
  client: ApiClient;
  logger: Logger;
  operations: OperationSet;
  /** The member's consent when known (OAuth): read lists and runs no write tool. */
  grantedScope?: Scope;
  /** Remote mode: links to the member's files too large to embed (no download folder there). */
  files?: MemberFileLinks;
  /** Limits of code mode's scripts, where they differ from the defaults (tests set them small). */
  scriptLimits?: Partial<ScriptLimits>;
  /** Remote mode: the member whose scripts these are (each member has a cap of scripts at once). */
  scriptOwner?: string;
}

/** What WORKSPACE_TOOLSETS=code lists: the script tools and the search that teaches them. */
const CODE_SURFACE: readonly string[] = ['run_read_script', 'run_write_script', 'find_operations', 'describe_operation'];

export class Session {
  readonly pipeline: Pipeline;
  readonly registry: ToolRegistry;
  readonly client: ApiClient;
  readonly #config: Config;
  readonly #scriptLimits: Partial<ScriptLimits> | undefined;
  readonly #scriptOwner: string | undefined;
  #listed: Tool[] = [];
  readonly #unsubscribe: () => void;

  constructor(deps: SessionDeps) {
    this.#config = deps.config;
    this.#scriptLimits = deps.scriptLimits;
    this.#scriptOwner = deps.scriptOwner;
    this.client = deps.client;
    this.registry = new ToolRegistry(deps.operations, {
      toolsets: deps.config.toolsets,
      readOnly: deps.config.readOnly,
      ...(deps.grantedScope ? { grantedScope: deps.grantedScope } : {}),
    });
    this.pipeline = new Pipeline({
      config: deps.config,
      client: deps.client,
      logger: deps.logger,
      registry: this.registry,
      ...(deps.files ? { files: deps.files } : {}),
    });
    this.#build();
    // The live description may add operations after start: the surface is rebuilt with them.
    this.#unsubscribe = deps.operations.onChanged(() => this.#build());
  }

  get operations(): OperationSet {
    return this.registry.operations;
  }

  /** What tools/list answers: complete, in a deterministic order (direct tools, workflows, gateway). */
  tools(): Tool[] {
    return this.#listed;
  }

  call(name: string, raw: unknown, ctx: CallContext): Promise<CallToolResult> {
    return this.pipeline.call(name, raw, ctx);
  }

  #build(): void {
    const { pipeline, registry } = this;
    let listed: ToolSpec[];
    const surface = this.#config.toolsets;
    if (surface === 'default' || surface === 'code') {
      // The default surface: the operations the three jobs use first, the workflows, the apps' tools, code
      // mode, the gateway.
      const budget = this.#config.responseBudget;
      const workflow = { pipeline, budget };
      const helpers = [
        engagementOverviewTool(workflow),
        reviewFindingsTool(workflow),
        documentContextTool(workflow),
        editDocumentBlocks(workflow),
        reviewBoardTool(pipeline, budget),
        documentPreviewTool(pipeline, budget),
      ];
      const own = [
        ...helpers,
        ...scriptTools({
          pipeline,
          budget,
          ...(this.#scriptLimits ? { limits: this.#scriptLimits } : {}),
          ...(this.#scriptOwner !== undefined ? { owner: this.#scriptOwner } : {}),
          // Not listed in code mode: the scripts' description names them.
          ...(surface === 'code' ? { unlisted: helpers.filter((t) => !registry.refusal(t)).map((t) => t.name) } : {}),
        }),
        // The gateway: find_operations, describe_operation, call_operation.
        ...gatewayTools(pipeline, surface === 'code'),
      ];
      // Code mode lists only what reaches everything by script; the rest stays callable by name.
      const shown =
        surface === 'code'
          ? own.filter((t) => CODE_SURFACE.includes(t.name))
          : [...surfaceOperations(registry.callable()).map((op) => pipeline.operationTool(op)), ...own];
      listed = shown.filter((t) => !registry.refusal(t));
      const names = new Set(listed.map((t) => t.name));
      pipeline.setSurface(own, (name) => names.has(name));
    } else {
      listed = registry.listed().map((op) => pipeline.operationTool(op));
      pipeline.setSurface([], (name) => !isRefusal(registry.resolve(name)));
    }
    this.#listed = listed.map((t) => t.definition);
  }

  /** Stops following the operation set (a member's session dropped from the remote mode's cache). */
  close(): void {
    this.#unsubscribe();
  }
}

const offline = (): never => {
  throw new Error('listing tools never calls the API');
};

/**
 * The tools a session with this policy lists over these operations, computed offline by the code
 * tools/list answers with: for the manifest, the token bench and the generated docs.
 */
export function toolListFor(policy: SurfacePolicy, operations: readonly Operation[]): Tool[] {
  const config = loadConfig({
    WORKSPACE_TOOLSETS: typeof policy.toolsets === 'string' ? policy.toolsets : policy.toolsets.join(','),
    WORKSPACE_READ_ONLY: String(policy.readOnly),
  });
  const { logger } = createLogger('silent');
  const session = new Session({
    config,
    client: { callOperation: offline, request: offline } as unknown as ApiClient,
    logger,
    operations: new OperationSet({ catalog: operations, logger, live: false }),
    ...(policy.grantedScope ? { grantedScope: policy.grantedScope } : {}),
  });
  session.close();
  return session.tools();
}

/** The gateway's tools, in the order they are listed. */
function gatewayTools(pipeline: Pipeline, codeMode: boolean): ToolSpec[] {
  const deps = { pipeline, ...(codeMode ? { codeMode } : {}) };
  return [findOperationsTool(deps), describeOperationTool(deps), callOperationTool(deps)];
}
