import { type Static, Type } from "typebox";
import { ERROR_STATUS } from "../domain/errors.js";
import { named } from "./schema-names.js";

/** The one error body (docs/troubleshooting.md); `validation_errors` only on input errors. */
export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String({ description: "The HTTP status phrase." }),
    message: Type.String(),
    code: Type.String({ enum: Object.keys(ERROR_STATUS), description: "Machine-readable error code." }),
    validation_errors: Type.Optional(
      Type.Array(
        Type.Object(
          { path: Type.String({ description: "JSON pointer" }), message: Type.String() },
          named("ValidationError", "One offending member of the request."),
        ),
      ),
    ),
  },
  named("ErrorBody", "The body of every error response."),
);

export type ErrorBody = Static<typeof ErrorBody>;
