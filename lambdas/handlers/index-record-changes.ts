import { awsIndexerPorts } from '../composition/aws-search';
import { streamIndexerHandler } from '../http/stream-indexer';

export const handler = streamIndexerHandler(awsIndexerPorts);
