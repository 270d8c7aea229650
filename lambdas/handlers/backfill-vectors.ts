import { createAwsBackfillPorts } from '../composition/aws-search';
import { awsTelemetry } from '../composition/aws-telemetry';
import { lambdaHandler } from '../http/lambda-handler';
import { vectorBackfillHandler } from '../http/vector-backfill';
import type { BackfillPorts } from '../core/use-cases/backfill-vectors';

let ports: BackfillPorts | undefined;

export const handler = lambdaHandler('vector-backfill', awsTelemetry, vectorBackfillHandler(() => (ports ??= createAwsBackfillPorts())));
