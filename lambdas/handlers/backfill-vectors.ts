import { awsBackfillPorts } from '../composition/aws-search';
import { awsTelemetry } from '../composition/aws-telemetry';
import { lambdaHandler } from '../http/lambda-handler';
import { vectorBackfillHandler } from '../http/vector-backfill';

export const handler = lambdaHandler('vector-backfill', awsTelemetry, vectorBackfillHandler(awsBackfillPorts));
