import { awsIndexerPorts } from '../composition/aws-search';
import { awsTelemetry } from '../composition/aws-telemetry';
import { lambdaHandler } from '../http/lambda-handler';
import { streamIndexerHandler } from '../http/stream-indexer';

export const handler = lambdaHandler('indexer', awsTelemetry, streamIndexerHandler(awsIndexerPorts, awsTelemetry.metrics));
