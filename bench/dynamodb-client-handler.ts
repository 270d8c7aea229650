// A cold-start reference: a Lambda entry that only imports the DynamoDB client (external, as in every function).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export const handler = async (): Promise<string> => DynamoDBClient.name;
