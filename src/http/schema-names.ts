/**
 * The options that make a schema a named component of the OpenAPI document
 * (`#/components/schemas/<name>`): generated clients get a type of that name. Names are unique.
 */
export function named(name: string, description: string) {
  return { $id: name, title: name, description };
}
