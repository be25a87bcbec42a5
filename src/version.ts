// Name and version the server reports in initialize; a test keeps the version equal to package.json's.
export const SERVER_NAME = 'workspace-consulting-mcp';
export const SERVER_VERSION = '0.1.0';
