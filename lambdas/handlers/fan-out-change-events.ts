import { awsFanOutPorts } from '../composition/aws-webhooks';
import { changeFanOutHandler } from '../http/change-fan-out';

export const handler = changeFanOutHandler(awsFanOutPorts);
