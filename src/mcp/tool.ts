import type { Static, TObject } from "typebox";
import type { OperationPolicy } from "../services/operations.js";
import type { ApiKeyRecord } from "../store/key-store.js";

/**
 * One MCP tool: a thin adapter over a service, with the same permission and operation group as the
 * REST route that offers the same operation. The server checks access and input; `run` only runs.
 */
export interface McpTool<S extends TObject = TObject> {
  /** The tool's name in `tools/list` and `tools/call`. */
  name: string;
  /** What the tool does, for the model and the person reading `tools/list`. */
  description: string;
  /** JSON Schema of the arguments: the TypeBox schema REST validates the same input with. */
  inputSchema: S;
  /** Permission and operation group, passed to the one access decision before anything runs. */
  operation: OperationPolicy;
  /** Runs the operation for the authenticated caller; returns the result's `item`. */
  run(caller: ApiKeyRecord, input: Static<S>): Promise<unknown>;
}

/** Keeps the input type of `run` tied to the schema, so a tool cannot read an argument it never declared. */
export function defineTool<S extends TObject>(tool: McpTool<S>): McpTool {
  return tool;
}
