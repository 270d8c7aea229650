import { Tags } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ApiRouteDefinition } from './api-routes';
import type { StageConfig } from './config';
import { PROJECT_ROOT } from './project-root';
import { stackNamesOf } from './stack-names';
import { StatefulStack } from './stateful-stack';
import { StatelessStack } from './stateless-stack';

export interface ServiceStacks {
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
}

export interface ServiceStackOptions {
  /** The developer dashboard's build output. @default `<projectRoot>/dashboard/dist` */
  readonly dashboardSiteDirectory?: string;
  /** @default ACCOUNT_ROUTES (lib/api-routes.ts) */
  readonly accountRoutes?: readonly ApiRouteDefinition[];
}

/** Both stacks of one stage, wired together; shared by bin/app.ts and the infra tests. */
export function createServiceStacks(
  scope: Construct,
  config: StageConfig,
  projectRoot: string = PROJECT_ROOT,
  options: ServiceStackOptions = {},
): ServiceStacks {
  const names = stackNamesOf(config.stage);

  const stateful = new StatefulStack(scope, names.stateful, {
    description: `Grants, Contracts and Funders Data Service (${config.stage}): table and search domain`,
    terminationProtection: !config.ephemeral,
    config,
  });

  const stateless = new StatelessStack(scope, names.stateless, {
    description: `Grants, Contracts and Funders Data Service (${config.stage}): functions and API`,
    config,
    recordsTable: stateful.recordsTable,
    searchDomain: stateful.searchDomain,
    indexerFailureQueue: stateful.indexerFailureQueue,
    webhookQueue: stateful.webhookQueue,
    webhookDeadLetterQueue: stateful.webhookDeadLetterQueue,
    cursorKeySecret: stateful.cursorKeySecret,
    webhookSecretKey: stateful.webhookSecretKey,
    apiDomain: stateful.apiDomain,
    dashboardIdentity: stateful.dashboardIdentity,
    dashboardSite: stateful.dashboardSite,
    dashboardSiteDirectory: options.dashboardSiteDirectory,
    accountRoutes: options.accountRoutes,
    projectRoot,
  });

  for (const stack of [stateful, stateless]) {
    Tags.of(stack).add('service', config.serviceName);
    Tags.of(stack).add('stage', config.stage);
  }
  return { stateful, stateless };
}
