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
import { defineListRoute, defineRoute } from '../http/route';
import { serializeAddon, serializeInstallation } from '../serializers/addon';
import {
  AddonCatalogItem,
  AddonCatalogQuery,
  AddonConfiguration,
  AddonIdParams,
  AddonInstallation,
  InstalledAddonsQuery,
} from '../../contracts/addon';

const ACTION_SUMMARIES: Record<AddonAction, string> = {
  activate: 'Activate an installed or suspended addon',
  suspend: 'Suspend an active addon',
  uninstall: 'Uninstall an addon (from any state but uninstalled)',
};

export function addonRoutes() {
  const base = { tag: 'Addons', auth: 'tenant', scope: 'addons:write' } as const;
  const read = { ...base, scope: 'addons:read' } as const;
  return [
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/addons/catalog',
      summary: 'List the addon catalog (shared by every tenant)',
      query: AddonCatalogQuery,
      response: z.array(AddonCatalogItem),
      message: 'Addon catalog retrieved',
      serialize: serializeAddon,
      handler: ({ query, ctx }) => listCatalog(ctx, query),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/addons/installed',
      summary: 'List the addons installed in this environment',
      query: InstalledAddonsQuery,
      response: z.array(AddonInstallation),
      message: 'Installed addons retrieved',
      serialize: serializeInstallation,
      handler: ({ query, ctx }) => listInstalled(ctx, query),
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/addons/:id/install',
      summary: 'Install a catalog addon (status installed; 409 unless not installed or uninstalled)',
      params: AddonIdParams,
      response: AddonInstallation,
      handler: async ({ params, ctx }) => ({
        data: serializeInstallation(await installAddon(ctx, params.id)),
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
        handler: async ({ params, ctx }) => ({
          data: serializeInstallation(await transitionAddon(ctx, params.id, action)),
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
      handler: async ({ params, body, ctx }) => ({
        data: serializeInstallation(await configureAddon(ctx, params.id, body.config)),
        message: 'Addon configured',
      }),
    }),
  ];
}
