import { Type } from "typebox";
import { AWS_EXTERNAL_ID_OPERATION } from "../domain/resource-families.js";
import { resourceToolInputSchemas } from "../domain/resource-schemas.js";
import type { AwsExternalIdService } from "../services/aws-external-id.js";
import type { ResourceService, ResourceServices } from "../services/resource-service.js";
import { defineTool, type McpTool } from "./tool.js";

/**
 * The five tools of one resource family, written once for every family: thin adapters over the same
 * service the REST routes use, under the same permissions and groups (the family table's `operations`).
 */
export function familyTools(service: ResourceService): McpTool[] {
  const { family } = service;
  const schemas = resourceToolInputSchemas(family);
  const ops = family.operations;
  const needs = (op: keyof typeof ops) =>
    ` Needs ${ops[op].permission}; counts against the ${ops[op].group} limit, shared with REST.`;
  const content =
    "content is the full record: name (1-255 characters), disabled (default false) and settings " +
    "(a JSON object of at most 16 KiB, default {}).";
  return [
    defineTool({
      name: family.tools.list,
      description:
        `Lists the organization's ${family.plural}, newest first, disabled ones included: one page of ` +
        "count records (1-100, default 10); pass pagination.next_page_start as page_start for the next." +
        needs("list"),
      inputSchema: schemas.list,
      operation: ops.list,
      run: (caller, input) => service.list(caller, input),
    }),
    defineTool({
      name: family.tools.get,
      description: `Retrieves one ${family.singular} by id (${family.idPrefix}...).${needs("get")}`,
      inputSchema: schemas.get,
      operation: ops.get,
      run: (caller, input) => service.get(caller, input.id),
    }),
    defineTool({
      name: family.tools.create,
      description: `Creates a ${family.singular}; ${content} At most 1,000 per organization.${needs("create")}`,
      inputSchema: schemas.create,
      operation: ops.create,
      run: (caller, input) => service.create(caller, input.content),
    }),
    defineTool({
      name: family.tools.update,
      description:
        `Replaces a ${family.singular} entirely (members left out return to their defaults); ${content}` +
        needs("update"),
      inputSchema: schemas.update,
      operation: ops.update,
      run: (caller, input) => service.update(caller, input.id, input.content),
    }),
    defineTool({
      name: family.tools.delete,
      description:
        `Deletes a ${family.singular}; deleting it again also succeeds. The item is true.` + needs("delete"),
      inputSchema: schemas.delete,
      operation: ops.delete,
      async run(caller, input) {
        await service.delete(caller, input.id);
        return true;
      },
    }),
  ];
}

/** Every family's tools, and `get_aws_storage_external_id`. */
export function resourceTools(deps: {
  resources: ResourceServices;
  awsExternalIds: AwsExternalIdService;
}): McpTool[] {
  return [
    ...Object.values(deps.resources).flatMap(familyTools),
    defineTool({
      name: "get_aws_storage_external_id",
      description:
        "The organization's AWS external id, {external_id}, to put in the trust policy of the IAM role a " +
        "storage destination lets the platform assume; it never changes. Needs " +
        `${AWS_EXTERNAL_ID_OPERATION.permission}; counts against ${AWS_EXTERNAL_ID_OPERATION.group}.`,
      inputSchema: Type.Object({}, { additionalProperties: false }),
      operation: AWS_EXTERNAL_ID_OPERATION,
      run: (caller) => deps.awsExternalIds.get(caller),
    }),
  ];
}
