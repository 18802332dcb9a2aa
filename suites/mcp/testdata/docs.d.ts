// MCP server "docs", catalog ids "mcp:docs:<tool>". Virtual and read-only.
type McpToolResult = {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
};

type McpApiHeader = {
  /** The MCP server name. */
  server: string;
  /** The declaration file of the server. */
  path: string;
  /** TypeScript-style declarations of the server, or of the one tool asked for. */
  text: string;
  tools: {
    name: string;
    mcpName: string;
    id: string;
    description: string;
    inputSchema?: unknown;
    outputSchema?: unknown;
  }[];
};

type McpResourceResult = { contents: unknown[]; [key: string]: unknown };

type McpPromptResult = { description?: string; messages: unknown[]; [key: string]: unknown };

declare namespace MCP.docs {
  /** Return this TypeScript-style API header. */
  function $api(toolName?: string, options?: { schema?: boolean }): Promise<McpApiHeader>;

  /**
   * Create an issue in a repository.
   * MCP tool "create_issue".
   * @param owner Repository owner
   * @param repo Repository name
   * @param title Issue title
   * @param body Issue body in Markdown
   * @param labels Labels to add
   */
  function createIssue(input: {
    owner: string;
    repo: string;
    title: string;
    body?: string;
    labels?: string[];
  }): Promise<McpToolResult>;

  /**
   * Echo the input back.
   */
  function echo(input?: Record<string, unknown>): Promise<McpToolResult>;

  /**
   * Always fails with a server error.
   */
  function explode(input?: Record<string, unknown>): Promise<McpToolResult>;

  /**
   * Always fails and reports it in the result (isError).
   * MCP tool "report_failure".
   */
  function reportFailure(input?: Record<string, unknown>): Promise<McpToolResult>;

  /**
   * Search the documentation.
   * Returns the matching pages.
   * MCP tool "search_docs".
   * @param query Words to look for
   * @param filter Narrow the search
   * @param format Output format (default: "markdown")
   * @param limit Maximum number of hits (default: 10)
   */
  function searchDocs(input: {
    query: string;
    filter?: {
      /** Only pages with this tag */
      tag: string;
      /** Only pages changed since this ISO date */
      since?: string;
    };
    format?: "markdown" | "text";
    limit?: number;
  }): Promise<McpToolResult>;

  /**
   * Report how many tool calls this server handled before this one, and its process id.
   * MCP tool "server_stats".
   */
  function serverStats(input?: Record<string, unknown>): Promise<McpToolResult>;

  /**
   * Wait before answering.
   * @param ms How long to wait, in milliseconds (default: 200)
   */
  function slow(input?: {
    ms?: number;
  }): Promise<McpToolResult>;

  /**
   * Current conditions as structured content.
   */
  function structured(input?: Record<string, unknown>): Promise<McpToolResult>;

  namespace resources {
    /** Read a resource of this server by URI (resources/read). */
    function read(input: { uri: string }): Promise<McpResourceResult>;
  }

  namespace prompts {
    /** Get a prompt of this server (prompts/get). */
    function get(input: { name: string; arguments?: Record<string, string> }): Promise<McpPromptResult>;
  }
}
