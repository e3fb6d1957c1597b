import { LatchkeyError } from "../domain/errors.js";

/** The largest request body latchkey reads, in bytes (64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

export function payloadTooLarge(): LatchkeyError {
  return new LatchkeyError(
    "payload_too_large",
    `The request body is too large: send at most ${MAX_BODY_BYTES / 1024} KiB.`,
  );
}

export function unsupportedMediaType(contentType: string | undefined): LatchkeyError {
  const type = contentType?.split(";")[0]?.trim() ?? "";
  // The type is echoed only when it looks like one, so that a message never carries arbitrary bytes.
  const sent = /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(type)
    ? `a body of type ${type}`
    : "a body that is not JSON";
  return new LatchkeyError(
    "unsupported_media_type",
    `Unsupported media type: this request sent ${sent}; send JSON with Content-Type: application/json.`,
  );
}
