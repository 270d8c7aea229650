import { awsDeadlineScanPorts } from '../composition/aws-deadline-scan';
import { deadlineScanHandler } from '../http/deadline-scan';

export const handler = deadlineScanHandler(awsDeadlineScanPorts);
