import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { LatchkeyError } from "../domain/errors.js";

/** A tool's answer: `{"success": true, "item": ...}` as structured content and as the same JSON text. */
export function toolSuccess(item: unknown): CallToolResult {
  const structured = { success: true, item };
  return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
}

/**
 * A refusal or failure as a tool error (`isError: true`), never an HTTP error: the text is the message
 * REST would send (naming the permission, or the group and its allowance). The structured content
 * adds REST's error code, validation errors and, for an exhausted group, the seconds until a slot
 * frees (what REST's `Retry-After` says), for clients that act on them.
 */
export function toolError(error: LatchkeyError): CallToolResult {
  const details = {
    code: error.code,
    message: error.message,
    ...(error.validationErrors ? { validation_errors: error.validationErrors } : {}),
    ...(error.retryAfterSeconds !== undefined ? { retry_after_seconds: error.retryAfterSeconds } : {}),
  };
  return {
    isError: true,
    structuredContent: { success: false, error: details },
    content: [{ type: "text", text: error.message }],
  };
}
