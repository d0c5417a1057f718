import { z } from 'zod';
import {
  ADDON_ACTIONS,
  configureAddon,
  installAddon,
  listCatalog,
  listInstalled,
  transitionAddon,
  type AddonAction,
} from '../../domain/addons';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializeAddon, serializeInstallation } from '../serializers/addon';
import {
  AddonCatalogItem,
  AddonCatalogQuery,
  AddonConfiguration,
  AddonIdParams,
  AddonInstallation,
  InstalledAddonsQuery,
} from '../schemas/addon';

const ACTION_SUMMARIES: Record<AddonAction, string> = {
  activate: 'Activate an installed or suspended addon',
  suspend: 'Suspend an active addon',
  uninstall: 'Uninstall an addon (from any state but uninstalled)',
};

export function addonRoutes(deps: AppDeps) {
  const base = { tag: 'Addons', auth: 'tenant', scope: 'addons:write' } as const;
  const read = { ...base, scope: 'addons:read' } as const;
  return [
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/addons/catalog',
      summary: 'List the addon catalog (shared by every tenant)',
      query: AddonCatalogQuery,
      response: z.array(AddonCatalogItem),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listCatalog(domainContext(deps, auth), query);
        return { data: rows.map(serializeAddon), pagination: paginate(query.page, query.limit, total), message: 'Addon catalog retrieved' };
      },
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/addons/installed',
      summary: 'List the addons installed in this environment',
      query: InstalledAddonsQuery,
      response: z.array(AddonInstallation),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listInstalled(domainContext(deps, auth), query);
        return {
          data: rows.map(serializeInstallation),
          pagination: paginate(query.page, query.limit, total),
          message: 'Installed addons retrieved',
        };
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/addons/:id/install',
      summary: 'Install a catalog addon (status installed; 409 unless not installed or uninstalled)',
      params: AddonIdParams,
      response: AddonInstallation,
      handler: async ({ params, auth }) => ({
        data: serializeInstallation(await installAddon(domainContext(deps, auth), params.id)),
        message: 'Addon installed',
      }),
    }),
    ...(Object.keys(ADDON_ACTIONS) as AddonAction[]).map((action) =>
      defineRoute({
        ...base,
        method: 'post',
        path: `/v1/addons/:id/${action}`,
        summary: ACTION_SUMMARIES[action],
        params: AddonIdParams,
        response: AddonInstallation,
        status: 200,
        handler: async ({ params, auth }) => ({
          data: serializeInstallation(await transitionAddon(domainContext(deps, auth), params.id, action)),
          message: `Addon ${ADDON_ACTIONS[action].to}`,
        }),
      }),
    ),
    defineRoute({
      ...base,
      method: 'put',
      path: '/v1/addons/:id/configuration',
      summary: "Replace an installed addon's configuration",
      params: AddonIdParams,
      body: AddonConfiguration,
      response: AddonInstallation,
      handler: async ({ params, body, auth }) => ({
        data: serializeInstallation(await configureAddon(domainContext(deps, auth), params.id, body.config)),
        message: 'Addon configured',
      }),
    }),
  ];
}
