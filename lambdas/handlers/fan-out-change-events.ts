import { awsFanOutPorts } from '../composition/aws-fan-out';
import { awsTelemetry } from '../composition/aws-telemetry';
import { changeFanOutHandler } from '../http/change-fan-out';
import { lambdaHandler } from '../http/lambda-handler';

export const handler = lambdaHandler('webhook-fan-out', awsTelemetry, changeFanOutHandler(awsFanOutPorts));
