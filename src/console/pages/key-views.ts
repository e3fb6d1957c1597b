import { canManageKeys } from "../../domain/console-roles.js";
import { effectivePermissions, PERMISSION_CATALOGUE, type Permission } from "../../domain/permissions.js";
import type { ApiKeyRecord } from "../../store/key-store.js";
import { type Html, html } from "../html.js";
import { formValuesOfKey, type KeyFormValues } from "../key-form.js";
import { confirmedActionForm, csrfField, type PageContext } from "../layout.js";
import {
  keyStatus,
  lifecycleFacts,
  lifecycleFields,
  rollForm,
  type RollProblem,
} from "./key-lifecycle-views.js";
import { when } from "../times.js";
import type { HandedSecret } from "../../services/secret-handoffs.js";
import { secretOnce, secretShownAlready } from "./secret-once.js";

/** Permissions grouped by family (`images`, `templates`, ...) for the picker. */
function families(): [string, Permission[]][] {
  const groups = new Map<string, Permission[]>();
  for (const permission of PERMISSION_CATALOGUE) {
    const family = permission.split(":")[0] ?? permission;
    groups.set(family, [...(groups.get(family) ?? []), permission]);
  }
  return [...groups];
}

const fieldId = (permission: string) => `permission-${permission.replace(/[^a-z_]/g, "-")}`;

/**
 * Name, description, permissions (by family), all-future, then expiry, networks and metadata: the
 * create and edit form's fields.
 */
export function keyFields(values?: KeyFormValues, editing = false): Html {
  const granted = new Set<string>(values ? values.permissions : []);
  const allFuture = values?.allFuture ?? false;
  return html`<label for="name">Name</label>
    <input id="name" name="name" type="text" maxlength="255" value="${values?.name ?? ""}" />
    <label for="description">Description</label>
    <textarea id="description" name="description" rows="2" maxlength="2000">
${values?.description ?? ""}</textarea>
    <fieldset>
      <legend>Permissions</legend>
      <label for="all_future_permissions"
        ><input
          id="all_future_permissions"
          name="all_future_permissions"
          type="checkbox"
          value="true"
          ${allFuture ? html` checked` : ""}
        />
        All permissions, including those added later</label
      >
      ${families().map(
        ([family, permissions]) =>
          html`<fieldset>
            <legend>${family}</legend>
            ${permissions.map(
              (p) =>
                html`<label for="${fieldId(p)}"
                  ><input
                    id="${fieldId(p)}"
                    name="permissions"
                    type="checkbox"
                    value="${p}"
                    ${granted.has(p) ? html` checked` : ""}${allFuture ? html` disabled` : ""}
                  />
                  ${p}</label
                >`,
            )}
          </fieldset>`,
      )}
    </fieldset>
    ${lifecycleFields(values, editing)}`;
}

export interface KeyFilters {
  namePrefix: string;
  /** One `name=value` metadata filter, as typed. */
  metadata: string;
  includeDisabled: boolean;
  permission: string;
}

/** The key list with its filters; the create link and disable buttons only for owners and admins. */
export function keyList(
  context: PageContext,
  keys: ApiKeyRecord[],
  filters: KeyFilters,
  now: number,
  notice?: string,
  problem?: string,
): Html {
  const org = context.current.orgId;
  const manager = canManageKeys(context.current.role);
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
    ${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
    <div class="toolbar">
      <p class="count">${keys.length === 1 ? "1 key" : `${keys.length} keys`}</p>
      ${manager ? html`<p><a href="/console/orgs/${org}/keys/new">Create key</a></p>` : ""}
    </div>
    <search aria-label="Filter keys">
      <form class="filters" method="get" action="/console/orgs/${org}/keys">
        <div>
          <label for="name_prefix">Name starts with</label
          ><input id="name_prefix" name="name_prefix" type="search" value="${filters.namePrefix}" />
        </div>
        <div>
          <label for="metadata_filter">Metadata (name=value)</label
          ><input
            id="metadata_filter"
            name="metadata"
            type="search"
            placeholder="team=billing"
            value="${filters.metadata}"
          />
        </div>
        <div>
          <label for="permission">With permission</label
          ><select id="permission" name="permission">
            <option value="">any</option>
            ${PERMISSION_CATALOGUE.map((p) => html`<option value="${p}" ${p === filters.permission ? html` selected` : ""}>${p}</option>`)}
          </select>
        </div>
        <div>
          <label for="include_disabled"
            ><input
              id="include_disabled"
              name="include_disabled"
              type="checkbox"
              value="true"
              ${filters.includeDisabled ? html` checked` : ""}
            />
            Include disabled keys</label
          >
        </div>
        <div><button type="submit">Filter</button></div>
      </form>
    </search>
    ${
      keys.length === 0
        ? html`<p>No keys match.</p>`
        : html`<table data-cards>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">API id</th>
                <th scope="col">Permissions</th>
                <th scope="col">Status</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${keys.map(
                (key) =>
                  html`<tr>
                    <td data-label="Name">
                      <a href="/console/orgs/${org}/keys/${key.id}"><strong>${key.name}</strong></a>
                    </td>
                    <td data-label="API id"><code>${key.apiId}</code></td>
                    <td data-label="Permissions">
                      ${key.allFuturePermissions ? "all, including future" : `${effectivePermissions(key).length} of ${PERMISSION_CATALOGUE.length}`}
                    </td>
                    <td data-label="Status">${keyStatus(key, now)}</td>
                    <td data-label="Last used">${when(key.lastUsedAt)}</td>
                    <td data-label="Actions">
                      ${
                        manager && key.enabled
                          ? confirmedActionForm(context.signedIn, {
                              action: `/console/orgs/${org}/keys/${key.id}/disable`,
                              confirm: "Disable this key? Requests with it are refused at once.",
                              label: "Disable",
                              subject: key.name,
                            })
                          : ""
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}

/**
 * The new key, with its secret: shown on the first visit of this page only (the redirect after the
 * create), with a copy button; a reload, or another tab, says where the secret went.
 */
export function createdKey(context: PageContext, key: ApiKeyRecord, handed: HandedSecret | undefined): Html {
  const org = context.current.orgId;
  return html`${
      handed
        ? html`<p class="notice" role="status">
              Key “${key.name}” created. Copy its secret now: it is shown only this once and cannot be
              recovered.
            </p>
            ${secretOnce(key, handed.secret)}`
        : secretShownAlready(context, key, "created")
    }
    <p>
      <a href="/console/orgs/${org}/keys/${key.id}">Edit this key</a> ·
      <a href="/console/orgs/${org}/keys">Back to keys</a>
    </p>`;
}

/** What the key page shows besides the key: a notice, or a refusal of the edit or of the roll. */
export interface KeyDetailState {
  notice?: string;
  /** The service's refusal of an edit, with the values submitted (shown again, nothing lost). */
  editProblem?: { message: string; values: KeyFormValues };
  rollProblem?: RollProblem;
}

/** One key: its identity, and for owners and admins the edit form, the roll form and the disable button. */
export function keyDetail(
  context: PageContext,
  key: ApiKeyRecord,
  now: number,
  { notice, editProblem, rollProblem }: KeyDetailState = {},
): Html {
  const org = context.current.orgId;
  const manager = canManageKeys(context.current.role);
  const facts = html`<dl>
    <dt>API id</dt>
    <dd><code>${key.apiId}</code></dd>
    <dt>Id</dt>
    <dd><code>${key.id}</code></dd>
    <dt>Status</dt>
    <dd>${keyStatus(key, now)}</dd>
    <dt>Created</dt>
    <dd>${when(key.createdAt)}</dd>
    <dt>Last used</dt>
    <dd>${when(key.lastUsedAt)}</dd>
    <dt>Permissions</dt>
    <dd>${key.allFuturePermissions ? "all, including future" : key.permissions.join(", ") || "none"}</dd>
    ${lifecycleFacts(key)}
  </dl>`;
  if (!manager)
    return html`${facts}
      <p><a href="/console/orgs/${org}/keys">Back to keys</a></p>`;
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
    <div class="key-page">
      <section aria-label="Details">${facts}</section>
      <section aria-labelledby="edit-heading">
        ${keyForms(context, key, { editProblem, rollProblem })}
      </section>
    </div>
    <p><a href="/console/orgs/${org}/keys">Back to keys</a></p>`;
}

/** A key's edit form and roll form, for owners and admins. */
function keyForms(
  context: PageContext,
  key: ApiKeyRecord,
  { editProblem, rollProblem }: KeyDetailState,
): Html {
  const org = context.current.orgId;
  return html`<h2 id="edit-heading">Edit</h2>
    ${editProblem ? html`<p class="error" role="alert">${editProblem.message}</p>` : ""}
    <form method="post" action="/console/orgs/${org}/keys/${key.id}" aria-labelledby="edit-heading">
      ${csrfField(context.signedIn)} ${keyFields(editProblem?.values ?? formValuesOfKey(key), true)}
      <label for="disabled"
        ><input
          id="disabled"
          name="disabled"
          type="checkbox"
          value="true"
          ${key.enabled ? "" : html` checked`}
        />
        Disabled</label
      >
      <p><button type="submit">Save changes</button></p>
    </form>
    ${rollForm(context, key, rollProblem)}`;
}

/** The create form. */
export function newKeyForm(context: PageContext, problem?: string, values?: KeyFormValues): Html {
  return html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
    <form method="post" action="/console/orgs/${context.current.orgId}/keys">
      ${csrfField(context.signedIn)} ${keyFields(values)}
      <p><button type="submit">Create key</button></p>
    </form>`;
}
