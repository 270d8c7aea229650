import { awsDeliveryPorts } from '../composition/aws-webhooks';
import { webhookSenderHandler } from '../http/webhook-sender';

export const handler = webhookSenderHandler(awsDeliveryPorts);
