import { type Static, Type } from "typebox";
import { named } from "./schemas.js";

/**
 * The wire shapes of GitHub's secret scanning partner program (docs/secret-scanning.md). They are
 * GitHub's, not latchkey's: members GitHub may add later are accepted and ignored, unlike in latchkey's
 * own bodies, so a change on GitHub's side never turns reports into 400s.
 */
export const LeakReportBody = Type.Array(
  Type.Object(
    {
      token: Type.String({ maxLength: 1000, description: "The string found in public." }),
      type: Type.String({ maxLength: 200, description: "The scanner's name for the pattern it matched." }),
      url: Type.Optional(Type.String({ maxLength: 4000, description: "Where it was found." })),
      source: Type.Optional(
        Type.String({ maxLength: 200, description: "What kind of place: content, commit, gist, npm, ..." }),
      ),
    },
    named("SecretScanningMatch", "One token a secret scanner found in public."),
  ),
  {
    maxItems: 1000,
    description: "The tokens of one report.",
    examples: [
      [
        {
          token: "lksk_3Xq9TtVb8wYzN2kLm4PpRs6DfGh1Jc0Ae5Ui7Oy9WbZ1a2b3c",
          type: "latchkey_api_key",
          url: "https://github.com/octocat/hello-world/blob/main/config.js#L3",
          source: "content",
        },
      ],
    ],
  },
);
export type LeakReportBody = Static<typeof LeakReportBody>;

export const LeakFeedback = Type.Array(
  Type.Object(
    {
      token_raw: Type.String({ description: "The token as reported." }),
      token_type: Type.String({ description: "The type as reported." }),
      label: Type.Union([Type.Literal("true_positive"), Type.Literal("false_positive")], {
        description:
          "`true_positive`: the secret of a key here (now disabled or flagged); else `false_positive`.",
      }),
    },
    named("SecretScanningFeedback", "What latchkey made of one reported token, in GitHub's feedback format."),
  ),
);

export const SignatureHeaders = Type.Object({
  "github-public-key-identifier": Type.String({
    description: "The `key_identifier` of the key that signed the body (LATCHKEY_SECRET_SCANNING_KEYS).",
  }),
  "github-public-key-signature": Type.String({
    description: "ECDSA P-256 with SHA-256 over the raw body, base64 DER.",
  }),
});
