import { awsDeadlineScanPorts } from '../composition/aws-deadline-scan';
import { awsTelemetry } from '../composition/aws-telemetry';
import { deadlineScanHandler } from '../http/deadline-scan';
import { lambdaHandler } from '../http/lambda-handler';

export const handler = lambdaHandler('deadline-scan', awsTelemetry, deadlineScanHandler(awsDeadlineScanPorts));
