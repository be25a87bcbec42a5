// The test's host page, bundled by esbuild and run in Chromium: ext-apps' host side (AppBridge)
// renders a view in a sandboxed iframe, as Claude or VS Code would, and relays the view's tool calls
// to the test (window.mcpCallTool, exposed by playwright), which sends them to the server over
// Streamable HTTP. Model-context updates are recorded for the test to read.
import { AppBridge, type McpUiHostContext, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface MountArgs {
  html: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
  context: McpUiHostContext;
}

declare global {
  interface Window {
    mcpCallTool(params: unknown): Promise<Record<string, unknown>>;
    mount(args: MountArgs): Promise<void>;
    setContext(context: McpUiHostContext): Promise<void>;
    modelContext: unknown[];
    toolCalls: unknown[];
  }
}

let bridge: AppBridge | undefined;
window.modelContext = [];
window.toolCalls = [];

window.mount = async ({ html, input, result, context }) => {
  await bridge?.close().catch(() => {});
  window.modelContext = [];
  window.toolCalls = [];
  const iframe = document.createElement('iframe');
  // What hosts do: scripts run, but in an opaque origin with no access to the host page.
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = 'app';
  iframe.style.cssText = 'width:100%;border:0;height:600px;display:block';
  document.body.replaceChildren(iframe);
  const b = new AppBridge(
    null,
    { name: 'test-host', version: '1.0.0' },
    { serverTools: {}, updateModelContext: { text: {} }, logging: {} },
    { hostContext: context },
  );
  b.oncalltool = async (params) => {
    window.toolCalls.push(params);
    return (await window.mcpCallTool(params)) as never;
  };
  b.onupdatemodelcontext = async (params) => {
    window.modelContext.push(params);
    return {};
  };
  b.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.ceil(height)}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    b.oninitialized = () => resolve();
  });
  const win = iframe.contentWindow as Window;
  await b.connect(new PostMessageTransport(win, win));
  iframe.srcdoc = html;
  await initialized;
  await b.sendToolInput({ arguments: input });
  await b.sendToolResult(result as never);
  bridge = b;
};

window.setContext = async (context) => {
  bridge?.setHostContext(context);
};
