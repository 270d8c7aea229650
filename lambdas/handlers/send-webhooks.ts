import { awsTelemetry } from '../composition/aws-telemetry';
import { awsDeliveryPorts } from '../composition/aws-webhooks';
import { lambdaHandler } from '../http/lambda-handler';
import { webhookSenderHandler } from '../http/webhook-sender';

export const handler = lambdaHandler('webhook-sender', awsTelemetry, webhookSenderHandler(awsDeliveryPorts, { mode: 'aws' }, awsTelemetry.metrics));
