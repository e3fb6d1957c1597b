import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { LatchkeyError } from "../domain/errors.js";
import { errorBody } from "../http/error-handler.js";

/** A tool's answer: `{"success": true, "item": ...}` as structured content and as the same JSON text. */
export function toolSuccess(item: unknown): CallToolResult {
  const structured = { success: true, item };
  return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
}

/**
 * A refusal or failure as a tool error (`isError: true`), never an HTTP error: the text is the message
 * REST would send (naming the permission, or the group and its allowance); the structured content
 * carries the same error body REST returns, for clients that act on the code.
 */
export function toolError(error: LatchkeyError): CallToolResult {
  return {
    isError: true,
    structuredContent: { success: false, error: errorBody(error) },
    content: [{ type: "text", text: error.message }],
  };
}
