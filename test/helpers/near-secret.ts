/**
 * `secret` with its last character changed: the same length, one character off. Always a different
 * string; replacing the last character with a fixed one would return the secret itself whenever its
 * random last character happened to be that one (1 run in 62).
 */
export function oneCharacterOff(secret: string): string {
  return secret.slice(0, -1) + (secret.endsWith("0") ? "1" : "0");
}
